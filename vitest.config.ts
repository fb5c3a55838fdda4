// Two projects, run together by `npm test` (and CI) and apart by `npm run test:unit` and
// `npm run test:integration` (TESTING.md gives each one's time):
// - unit: the files named *.unit.test.ts, in-process, that need no build, no server, no browser
//   and no child process (test/architecture/test-projects.unit.test.ts keeps them so); runnable on
//   a fresh clone.
// - integration: every other *.test.ts, after one build of dist/ when it is missing or stale.
import { defineConfig } from 'vitest/config';

/** The unit project: a test file's name says it (`*.unit.test.ts`); a new file is a unit test by its name alone. */
export const unitTests: readonly string[] = ['test/**/*.unit.test.ts'];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    // The cards read wiki.css's colours (src/wiki/card-layout.ts, `?raw`): vitest empties CSS it is not told to keep.
    css: { include: [/wiki\.css/] },
    projects: [
      { extends: true, test: { name: 'unit', include: [...unitTests] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unitTests],
          // Builds dist/ once when it is missing or stale; suites that serve it rely on that. At the
          // end, fails if a process the run started (workerd, node) is still running.
          globalSetup: ['test/setup/build-once.ts', 'test/setup/no-leftovers.ts'],
          // Each file's runtimes closed at its end, however its own hooks went.
          setupFiles: ['test/setup/close-runtimes.ts'],
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
