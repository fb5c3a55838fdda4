// Two projects, run together by `npm test` (and CI) and apart by `npm run test:unit` and
// `npm run test:integration` (TESTING.md gives each one's time):
// - unit: the files below, in-process, that need no build, no server, no browser and no child
//   process (test/architecture/test-projects.test.ts keeps them so); runnable on a fresh clone.
// - integration: every other file, after one build of dist/ when it is missing or stale.
import { defineConfig } from 'vitest/config';

export const unitTests: readonly string[] = [
  'test/architecture/apps.test.ts',
  'test/architecture/code-shape.test.ts',
  'test/architecture/configuration-doc.test.ts',
  'test/architecture/docs.test.ts',
  'test/architecture/imports.test.ts',
  'test/architecture/layout-table.test.ts',
  'test/architecture/mutation-config.test.ts',
  'test/architecture/test-projects.test.ts',
  'test/build/brotli-quality.test.ts',
  'test/build/columns.test.ts',
  'test/build/content-errors.test.ts',
  'test/build/deploy-limits.test.ts',
  'test/build/freshness.test.ts',
  'test/build/releases.test.ts',
  'test/build/scopes.test.ts',
  'test/build/search-key.test.ts',
  'test/build/settings.test.ts',
  'test/build/suggest.property.test.ts',
  'test/bundles/tabular-releases.test.ts',
  'test/client/archive.test.ts',
  'test/client/terminal.test.ts',
  'test/client/transport.test.ts',
  'test/container/dockerfile.test.ts',
  'test/contract/**/*.test.ts',
  'test/discord/limits.property.test.ts',
  'test/edge/client-address.test.ts',
  'test/edge/negotiation.test.ts',
  'test/edge/tokens.test.ts',
  'test/mcp/registry.test.ts',
  'test/reliability/rate-ipc.test.ts',
  'test/server/access-log-lines.test.ts',
  'test/cloudflare/bucket-objects.test.ts',
  'test/server/encode.test.ts',
  'test/server/node-adapter.test.ts',
  'test/server/rate-counter.test.ts',
  'test/server/restart-policy.test.ts',
  'test/server/settings.test.ts',
  'test/server/static-files.test.ts',
  'test/wiki/changes.test.ts',
  'test/wiki/model.test.ts',
  'test/wiki/planner.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
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
