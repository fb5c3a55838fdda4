// A failure the Node server catches (src/server/exchange.ts), here a download whose answer throws
// before any header is sent: the API's JSON 500 of src/edge/failure.ts, as the Worker answers
// (test/worker/worker.test.ts), with CORS and no stack or path; the detail goes to stderr.
import { afterEach, expect, test, vi } from 'vitest';
import type { Latest } from '../../src/contract/bundle-layout.ts';
import { type RunningServer, startServer } from '../../src/server/http-server.ts';
import { stderrLines } from '../../src/server/stderr.ts';
import { CONTRACT_FAILURE, failureSeen } from '../support/failure-answer.ts';
import { distDir } from '../support/runtimes.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FAULT = 'a planted fault of answerFile';
// The rule of byte ranges throws for every download, as a bug in it would.
vi.mock('../../src/contract/byte-ranges.ts', async (original) => ({
  ...(await original<object>()),
  answerFile: () => {
    throw new Error(FAULT);
  },
}));

let running: RunningServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await running?.close(0);
  running = undefined;
});

test("a failure before the headers is the API's JSON 500 with CORS, the detail only in the log", async () => {
  const logged: unknown[][] = [];
  vi.spyOn(stderrLines, 'sayError').mockImplementation((...parts: unknown[]) => {
    logged.push(parts);
    return true;
  });
  const latest = JSON.parse(readFileSync(join(distDir, 'downloads', 'latest.json'), 'utf8')) as Latest;
  const bundle = latest.bundles[0];
  if (!bundle) throw new Error('latest.json names no bundle');
  running = await startServer({ distDir });
  const target = `/downloads/${bundle.name}`;
  expect(await failureSeen(await fetch(`${running.url}${target}`))).toEqual(CONTRACT_FAILURE);
  expect(logged.map((parts) => parts.map((part) => (part instanceof Error ? part.message : part)))).toEqual([
    [`GET ${target} failed:`, FAULT],
  ]);
  // HEAD: the same status and headers, no body.
  const head = await fetch(`${running.url}${target}`, { method: 'HEAD' });
  expect([head.status, head.headers.get('access-control-allow-origin'), await head.text()]).toEqual([500, '*', '']);
});
