// `npm run release -- --notes "..."`: makes a data release of the content (make-release.ts).
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ContentError } from './content.ts';
import { makeRelease, ReleaseRefused } from './make-release.ts';
import { dataDirOf } from './releases.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));

try {
  const { values } = parseArgs({ options: { notes: { type: 'string' } } });
  const made = makeRelease(dataDirOf(projectDir), values.notes ?? '');
  console.log(made.summary);
} catch (error) {
  const badArguments = (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS') ?? false;
  const known = error instanceof ContentError || error instanceof ReleaseRefused || badArguments;
  console.error(known ? (error as Error).message : error);
  if (badArguments) console.error('Usage: npm run release -- --notes "what changed"');
  console.error('No release was made; nothing was written.');
  process.exit(1);
}
