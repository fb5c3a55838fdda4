// `npm run build`: the whole build (site.ts), with a readable message when it fails.
// `npm run build -- --out <dir>` builds into another folder than dist/ (benchmarks of other content).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ContentError } from './content.ts';
import { buildSite } from './site.ts';

const started = performance.now();
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = values.out === undefined ? undefined : resolve(values.out);
try {
  await buildSite(outDir);
  console.log(`Built ${outDir ?? 'dist/'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(error instanceof ContentError ? error.message : error);
  console.error(`The build failed; ${outDir ?? 'dist/'} was left as it was.`);
  process.exit(1);
}
