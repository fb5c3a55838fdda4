// Mutation testing of src/contract, src/edge and src/client with StrykerJS and its vitest
// runner: `npm run test:mutation` (all three), `MUTATE_FOLDER=edge npm run test:mutation`
// (one; also contract or client). Not in CI: too slow for 2 cores. See TESTING.md.
const folders = process.env.MUTATE_FOLDER ? [process.env.MUTATE_FOLDER] : ['contract', 'edge', 'client'];
const label = process.env.MUTATE_FOLDER ?? 'all';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // The tests of the folder(s), chosen by MUTATE_FOLDER there too.
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // verify-cli.ts, the treefarm command (cli/) and mcp.ts (its MCP over stdin and stdout): their
  // tests run them in a child process (the bin, packed or from source), where no mutant is on.
  mutate: [
    ...folders.map((folder) => `src/${folder}/**/*.ts`),
    '!src/client/verify-cli.ts',
    '!src/client/cli/**',
    '!src/client/mcp.ts',
  ],
  // 'all': every mutant runs the folder's tests until one fails. 'perTest' missed tests that do
  // reach a mutant (src/client/bundle.ts's check of a file against the manifest was reported
  // as surviving while six offline tests fail on it), so it reported killed mutants as survivors.
  coverageAnalysis: 'all',
  concurrency: 2,
  // Later runs retest only the mutants of changed code or tests.
  incremental: true,
  incrementalFile: `reports/mutation/${label}-incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${label}.html` },
  jsonReporter: { fileName: `reports/mutation/${label}.json` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  // Not copied to the sandbox: caches, reports, and the temporary folders of a build in progress.
  ignorePatterns: ['.astro', '.wrangler', 'test-output', 'bench', 'reports', '.staging-*', '.retired-*'],
  timeoutMS: 60_000,
  thresholds: { high: 90, low: 80, break: null },
};
