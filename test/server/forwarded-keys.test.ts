// The Node server behind a trusted proxy that forwards what is not an address (docs/limits.md,
// "Rate limits"; issue 62 finding 3): 20,000 requests, each naming a new 8 KB `for=_...` in
// Forwarded, are counted under one short key, so the address count's memory stays bounded by
// its key count times a small constant, and no new name buys a new count. The keys the count is
// asked to hold are recorded as it is asked, so the bound is measured, not timed.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RateLimit } from '../../src/schema/environment.ts';
import { type RunningServer, startServer } from '../../src/server/http-server.ts';
import { localRateCounter } from '../../src/server/rate-counter.ts';
import { trustedProxies } from '../../src/edge/trusted-proxies.ts';
import { distDir } from '../support/runtimes.ts';

const NAMES = 20_000;
const NAME_BYTES = 8 * 1024;
const LIMIT: RateLimit = { requests: 5, seconds: 60 };
/** The longest key an address has: an IPv6 /64 written out whole. */
const LONGEST_ADDRESS_KEY = 'ffff:ffff:ffff:ffff::/64'.length;

/** Every key the address count was asked to hold, with how often. */
const held = new Map<string, number>();
let running: RunningServer;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  const trusted = trustedProxies('127.0.0.1');
  if (typeof trusted === 'string') throw new Error(trusted);
  // Mid-window on a clock that stands still: no window ends during the test.
  const count = localRateCounter(LIMIT, () => 1_000_000_030_000);
  running = await startServer({
    distDir,
    tokens: ['forwarded-keys-token'],
    rateLimit: LIMIT,
    rateCounter: (countedBy, key) => {
      if (countedBy === 'address') held.set(key, (held.get(key) ?? 0) + 1);
      return count(countedBy, key);
    },
    trustProxy: trusted,
    trustProxyHeader: 'forwarded',
  });
});

afterAll(async () => {
  agent.destroy();
  await running?.close(0);
});

/** The status of a wrong-token request through the trusted proxy (loopback) naming `node`. */
function statusFor(node: string): Promise<number> {
  const { port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const headers = { Authorization: 'Bearer wrong', Forwarded: `for=${node}` };
    request({ host: '127.0.0.1', port, path: '/api/trees', agent, headers }, (response) => {
      response.resume().on('end', () => resolve(response.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

/** The `index`th name: `_`, the index, then filler to NAME_BYTES (an obfuscated node, RFC 7239 6.3). */
const nameOf = (index: number) => `_${index.toString(36)}`.padEnd(NAME_BYTES, 'x');

test('20,000 new 8 KB names that are not addresses are held as one short key, and share one count', async () => {
  const statuses = new Map<number, number>();
  let next = 0;
  const sender = async () => {
    for (let index = next++; index < NAMES; index = next++) {
      const status = await statusFor(nameOf(index));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
  const keyCharacters = [...held.keys()].reduce((sum, key) => sum + key.length, 0);
  // The bound: as many keys as there may be, each no longer than an address's.
  expect(keyCharacters).toBeLessThanOrEqual(held.size * LONGEST_ADDRESS_KEY);
  expect([...held]).toEqual([['unknown', NAMES]]);
  expect(Object.fromEntries(statuses)).toEqual({ 401: LIMIT.requests, 429: NAMES - LIMIT.requests });
}, 120_000);
