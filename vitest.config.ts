import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once when it is missing or stale; suites that serve it rely on that.
    globalSetup: ['test/setup/build-once.ts'],
    testTimeout: 30_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    hookTimeout: 180_000,
  },
});
