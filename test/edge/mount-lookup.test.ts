// A request's path is classified once (issue 63): the adapter finds the app mounted there
// (mountAt) and hands it to the core with the request (EdgeRequest's `mount`), which looks up no
// app itself. Counted through a mount whose path is read by a getter, in the Node server and in the
// Worker module, for a request of each kind.
import { afterAll, beforeAll, describe, expect, expectTypeOf, test, vi } from 'vitest';
import type { AppSettings } from '../../src/apps/mounts.ts';
import type { AppMount } from '../../src/edge/apps.ts';
import type { EdgeOptions } from '../../src/edge/core.ts';
import { startServer } from '../../src/server/http-server.ts';
import { ECHO_PATH, echoMount } from '../fixtures/apps/echo/mount.ts';
import { inProcessWorker, type WorkerFetch } from '../support/in-process-worker.ts';
import { distDir } from '../support/runtimes.ts';

const TOKEN = 'mount-lookup-token';
const bearer = { Authorization: `Bearer ${TOKEN}` };

/** The echo app, its path read through a getter that counts the reads. */
function countedEcho(): { mount: AppMount<AppSettings>; reads: () => number } {
  let reads = 0;
  const mount = {
    ...echoMount,
    get path() {
      reads++;
      return ECHO_PATH;
    },
  };
  return { mount, reads: () => reads };
}

/** One of each kind of request: the app's, its preflight and 405, the API's, the site's, the health check. */
const REQUESTS: [string, RequestInit][] = [
  [ECHO_PATH, { method: 'POST', headers: bearer, body: 'hello' }],
  [ECHO_PATH, { method: 'OPTIONS' }],
  [ECHO_PATH, { method: 'PUT', headers: bearer, body: 'x' }],
  ['/api/trees', { headers: bearer }],
  ['/', {}],
  ['/healthz', {}],
];

/** The reads of the app's path each request of REQUESTS took. */
async function readsPerRequest(send: WorkerFetch, reads: () => number): Promise<Record<string, number>> {
  // The first request starts a Worker isolate (which reads its table): counted from the second.
  await (await send('/healthz')).arrayBuffer();
  const counted: Record<string, number> = {};
  for (const [path, init] of REQUESTS) {
    const before = reads();
    await (await send(path, init)).arrayBuffer();
    counted[`${init.method ?? 'GET'} ${path}`] = reads() - before;
  }
  return counted;
}
const ONCE_EACH = Object.fromEntries(REQUESTS.map(([path, init]) => [`${init.method ?? 'GET'} ${path}`, 1]));

test('the core is given the app at the path, never a list of apps to look it up in', () => {
  expectTypeOf<EdgeOptions>().not.toHaveProperty('apps');
});

describe('the app at a request path is looked up once a request', () => {
  const node = countedEcho();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  beforeAll(async () => {
    server = await startServer({ distDir, tokens: [TOKEN], apps: [node.mount] });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await server?.close(0);
  });

  test('in the Node server', async () => {
    const url = server?.url ?? '';
    expect(await readsPerRequest((path, init) => fetch(url + path, init), node.reads)).toEqual(ONCE_EACH);
  });

  test('in the Worker', async () => {
    const worker = countedEcho();
    const send = await inProcessWorker([worker.mount], { API_TOKENS: TOKEN });
    expect(await readsPerRequest(send, worker.reads)).toEqual(ONCE_EACH);
  });

  test('in the Worker with the API off (a malformed API_RATE_LIMIT), which checks the guard first', async () => {
    const worker = countedEcho();
    // The isolate says once that the API is off.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const send = await inProcessWorker([worker.mount], { API_TOKENS: TOKEN, API_RATE_LIMIT: 'lots' });
    expect(await readsPerRequest(send, worker.reads)).toEqual(ONCE_EACH);
  });
});
