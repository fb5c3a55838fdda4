// Mutation testing of src/contract, src/edge, src/client and src/apps with StrykerJS and its vitest
// runner: `npm run test:mutation` (all four), `MUTATE_FOLDER=edge npm run test:mutation`
// (one; also contract, client or apps). Not in CI: too slow for 2 cores. See TESTING.md.
const folders = process.env.MUTATE_FOLDER ? [process.env.MUTATE_FOLDER] : ['contract', 'edge', 'client', 'apps'];
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
    // An app's command lines (cli/): their tests run them in a child process too.
    '!src/apps/*/cli/**',
  ],
  // 'perTest': each mutant runs only the tests that reach it, and static mutants (module-level
  // constants, each a fresh load of the modules: with 'all' over two hours a folder on 2 cores)
  // are left out. Its blind spot: a constant StrykerJS does not see as static is evaluated before
  // the mutant is switched on, so it reports a survivor a test does kill. Recheck such lines with
  // `--coverageAnalysis all --mutate <file:lines>` (TESTING.md).
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  // The first run of all the tests, under instrumentation, takes minutes on a loaded machine.
  dryRunTimeoutMinutes: 40,
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
