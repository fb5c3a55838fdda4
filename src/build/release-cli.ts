// `npm run release -- --notes "..."`: makes a data release of the content (make-release.ts);
// with --dry-run, shows the release it would make and writes nothing.
import '../cli/node-check.ts';
import { projectDir } from '../cli/project-dir.ts';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';
import { ContentError } from './content.ts';
import { makeRelease, ReleaseRefused } from './make-release.ts';
import { dataDirOf } from './releases.ts';
import { buildSettings, buildVariables } from './settings.ts';

const { dataDir } = buildVariables;

const spec: CommandSpec = {
  command: 'npm run release',
  summary:
    'Records the content as a new data release: one new file in releases/, written whole or not at all, ' +
    'never over another. Refused, writing nothing, when the content is invalid or the same as the latest release.',
  options: {
    notes: { type: 'string', value: '<text>', description: 'what changed, for the wiki and /api/releases (needed)' },
    'dry-run': { type: 'boolean', description: 'show the release it would make, and write nothing' },
  },
  variables: { dataDir },
  examples: ['npm run release -- --notes "Giant Sequoia\'s price corrected" --dry-run'],
  version: () => projectVersion(),
  userErrors: [ContentError, ReleaseRefused],
  failure: 'No release was made',
};

await runMain(spec, ({ values }) => {
  buildSettings();
  const notes = typeof values.notes === 'string' ? values.notes : '';
  const made = makeRelease(dataDirOf(projectDir), notes, { dryRun: values['dry-run'] === true });
  console.log(made.summary);
  if (values['dry-run'] === true) for (const line of made.changes) console.log(`  ${line}`);
  return 0;
});
