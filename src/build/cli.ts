// `npm run build`: the whole build (site.ts), with a readable message when it fails.
// `npm run build -- --out <dir>` builds into another folder than dist/ (benchmarks of other content).
import '../cli/node-check.ts';
import { projectVersion } from '../cli/project-version.ts';
import { callerPath, type CommandSpec, runMain } from '../cli/command-line.ts';
import { ContentError } from './content.ts';
import { buildVariables, buildSettings } from './settings.ts';
import { buildSite } from './site.ts';

const spec: CommandSpec = {
  command: 'npm run build',
  summary:
    'Builds the wiki, the API, the offline bundles and the releases from content/ and releases/ into dist/ ' +
    '(or --out), replacing it only when the whole build succeeds.',
  options: {
    out: { type: 'string', value: '<dir>', description: 'build into <dir> instead of dist/ (relative to your folder)' },
  },
  variables: buildVariables,
  examples: ['SITE_ORIGIN=https://wiki.example.org npm run build'],
  version: () => projectVersion(),
  failure: 'The build failed',
};

await runMain(spec, async ({ values }) => {
  const started = performance.now();
  const outDir = typeof values.out === 'string' ? callerPath(values.out) : undefined;
  // Checked before anything is built: a bad variable is one line naming it.
  buildSettings();
  try {
    await buildSite(outDir);
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    console.error(error.message);
    console.error(`The build failed; ${outDir ?? 'dist/'} was left as it was.`);
    return 1;
  }
  console.log(`Built ${outDir ?? 'dist/'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 0;
});
