// The tests StrykerJS runs against the mutants of one folder (`npm run test:mutation`,
// stryker.config.mjs, TESTING.md): the fast, in-process suites that check that folder with
// expected values of their own. Not here: the runs in workerd or in child processes (a mutant
// is switched on inside this process only), the browser, and the slow reliability suites.
// MUTATE_FOLDER picks the folder; without it, the tests of all four. dist/ must be built
// first; the npm script sees to that.
import { defineConfig } from 'vitest/config';

export const mutationTests: Record<string, readonly string[]> = {
  edge: [
    'test/edge/negotiation.unit.test.ts',
    'test/edge/tokens.unit.test.ts',
    'test/edge/memo.test.ts',
    'test/edge/core.test.ts',
    'test/edge/core.property.test.ts',
    'test/edge/remembered.test.ts',
    'test/edge/rate-limit.test.ts',
    'test/edge/client-address.unit.test.ts',
    'test/worker/worker.test.ts',
  ],
  contract: [
    'test/contract/layout-and-order.unit.test.ts',
    'test/contract/releases.unit.test.ts',
    'test/contract/suggest.unit.test.ts',
    'test/contract/economics.unit.test.ts',
    'test/contract/rate-limit.unit.test.ts',
    'test/contract/bucket-layout.unit.test.ts',
    'test/contract/byte-ranges.unit.test.ts',
    'test/contract/resolve.unit.test.ts',
    'test/edge/rate-limit.test.ts',
    'test/edge/core.test.ts',
    'test/build/search-key.unit.test.ts',
    'test/build/envelopes.test.ts',
    'test/bundles/bundles.test.ts',
    'test/edge/core.property.test.ts',
    'test/client/offline.test.ts',
    'test/build/suggest.property.unit.test.ts',
  ],
  // The apps (src/apps/): what the edge and the contract folders held of them before they moved.
  apps: [
    // src/apps/mcp/answer.ts's bounds and errors, and the MCP tools, through the SDK's client
    // against the Node server in-process.
    'test/mcp/http.test.ts',
    // The tools' answers word for word, over the SDK's in-memory transport.
    'test/mcp/tools.test.ts',
    // Malformed messages and params word for word (messages.ts), through /mcp's handler in-process.
    'test/mcp/messages.test.ts',
    // The Discord app's messages within Discord's limits.
    'test/discord/limits.property.unit.test.ts',
  ],
  client: [
    'test/client/archive.unit.test.ts',
    'test/client/offline.test.ts',
    'test/client/online.test.ts',
    'test/client/network.test.ts',
    'test/client/transport.unit.test.ts',
    'test/client/economics.test.ts',
    'test/client/terminal.unit.test.ts',
    'test/client/cli-digest.test.ts',
    'test/bundles/bundles.test.ts',
    'test/build/suggest.property.unit.test.ts',
  ],
};

const folder = process.env['MUTATE_FOLDER'];
const selected = folder ? mutationTests[folder] : Object.values(mutationTests).flat();
if (!selected) throw new Error(`MUTATE_FOLDER=${folder}: not one of ${Object.keys(mutationTests).join(', ')}`);

export default defineConfig({
  test: {
    include: [...new Set(selected)],
    // Each mutant reruns the properties; 200 runs each, under Stryker's instrumentation, keep
    // a run of src/edge within minutes (the full suite runs 2,000).
    env: { PROPERTY_RUNS: '200' },
    // Generous: under StrykerJS's instrumentation on a loaded machine a property run took past 30 s.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
