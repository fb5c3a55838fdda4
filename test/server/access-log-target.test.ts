// The target the access log gets from the server (src/server/exchange.ts): the request target as the
// client sent it, whatever the static site makes of it to serve a file.
import { get } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import type { AccessRecord } from '../../src/server/access-log-ring.ts';
import type { AccessLog } from '../../src/server/access-log.ts';
import { type RunningServer, startServer } from '../../src/server/http-server.ts';
import { distDir } from '../support/runtimes.ts';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close(0);
  running = undefined;
});

/** The record the server logs for a GET of `target`, sent as it is (no client-side normalising). */
async function loggedRecord(target: string): Promise<AccessRecord> {
  let logged: (record: AccessRecord) => void = () => {};
  const record = new Promise<AccessRecord>((resolve) => {
    logged = resolve;
  });
  const log: AccessLog = { add: (each) => logged(each), flushSync: () => {} };
  running = await startServer({ distDir, accessLog: log });
  const { port } = new URL(running.url);
  await new Promise<void>((answered, failed) =>
    get({ host: '127.0.0.1', port, path: target }, (response) => {
      response.resume().on('end', answered);
    }).on('error', failed),
  );
  return record;
}

test('a static path is logged as the client sent it, not as the static site rewrote it', async () => {
  const record = await loggedRecord('/.%2e/.%2e/etc/passwd');
  expect(record.path).toBe('/.%2e/.%2e/etc/passwd');
});

test('an API target is logged as the client sent it', async () => {
  const record = await loggedRecord('/api/./trees?search=Oak%20Tree');
  expect(record.path).toBe('/api/./trees?search=Oak%20Tree');
});
