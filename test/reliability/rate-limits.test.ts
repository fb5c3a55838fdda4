// Rate limits, health and the access log over HTTP (docs/api-contract.md, "Rate limits" and
// "Health"): in both runtimes where both apply (the Node server in-process, the Worker in
// workerd with wrangler's simulation of Cloudflare's rate limiting binding), and the served
// CLI for WORKERS=2 and the log. Windows are 10 s. The Node server in-process counts by a clock
// the test moves (a fresh window, the next one); the Worker's binding keeps its own time, so a
// test that waits for its next window polls with a generous deadline, never a fixed sleep.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { healthBody } from '../../src/contract/health.ts';
import type { RateLimit } from '../../src/schema/environment.ts';
import { startWorker } from '../../src/cloudflare/worker-dev.ts';
import { distDir, freePort, type Runtime, runtimeNames, startRuntime } from '../support/runtimes.ts';
import { type RunningServeChild, startServe } from '../support/serve-child.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const LIMIT: RateLimit = { requests: 3, seconds: 10 };
const FIRST = 'limits-first-token';
const SECOND = 'limits-second-token';
/** A token no other test sends: its first request is the one under test. */
const THIRD = 'limits-third-token';
const version = (JSON.parse(readFileSync(join(distDir, 'manifest.json'), 'utf8')) as { version: string }).version;

const get = (url: string, token: string | null, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/trees?search=Oak%20Tree`, {
    headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...headers },
  });

/**
 * Requests with `token` one after another until the first 429 (at most two windows' worth): the
 * answers. `headers` may be each request's own.
 */
async function untilRefused(
  url: string,
  token: string | null,
  headers: Record<string, string> | ((sent: number) => Record<string, string>) = {},
) {
  const answers: Response[] = [];
  for (let sent = 0; sent <= 2 * LIMIT.requests + 1; sent++) {
    const answer = await get(url, token, typeof headers === 'function' ? headers(sent) : headers);
    await answer.arrayBuffer();
    answers.push(answer);
    if (answer.status === 429) break;
  }
  return answers;
}

/** The in-process Node server's clock for its windows: moved by the tests, never waited for. */
let nodeClock = 1_000;
/** The Node server's clock one second into the next window: a fresh window, whatever was counted before. */
function nextNodeWindow(): void {
  const windowMs = LIMIT.seconds * 1000;
  nodeClock = (Math.floor(nodeClock / windowMs) + 1) * windowMs + 1_000;
}

const TOO_MANY =
  /^Too many requests with this API token: the limit is 3 per 10 seconds\. Try again in (\d+) seconds\.$/;
const TOO_MANY_FROM_ADDRESS =
  /^Too many requests from this address: the limit is 3 per 10 seconds\. Try again in (\d+) seconds\.$/;

describe.each(runtimeNames)('%s runtime under API_RATE_LIMIT=3/10s', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, {
      tokens: [FIRST, SECOND, THIRD],
      rateLimit: LIMIT,
      rateClock: () => nodeClock,
    });
  }, 120_000);
  afterAll(() => runtime?.close());

  test('the (n+1)th request of a window is a 429: Retry-After, RateLimit r=0, error headers, the body', async () => {
    if (name === 'node') nextNodeWindow();
    const answers = await untilRefused(runtime.url, FIRST);
    const refused = answers.at(-1);
    expect(refused?.status).toBe(429);
    if (name === 'node') expect(answers.length).toBe(LIMIT.requests + 1);
    const retryAfter = Number(refused?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(LIMIT.seconds);
    expect(Object.fromEntries(refused?.headers ?? [])).toMatchObject({
      'ratelimit-policy': '"token";q=3;w=10',
      ratelimit: `"token";r=0;t=${retryAfter}`,
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'x-data-version': version,
      'content-type': 'application/json; charset=utf-8',
    });
    const again = await get(runtime.url, FIRST);
    const body = (await again.json()) as { error: boolean; message: string };
    expect(again.status).toBe(429);
    expect(body.error).toBe(true);
    expect(body.message).toMatch(TOO_MANY);
  });

  test('every /api/ answer under a limit carries RateLimit-Policy (RateLimit where the runtime knows it)', async () => {
    const answer = await get(runtime.url, SECOND);
    expect(answer.headers.get('ratelimit-policy')).toBe('"token";q=3;w=10');
    if (name === 'node') expect(answer.headers.get('ratelimit')).toMatch(/^"token";r=\d+;t=\d+$/);
    const preflight = await fetch(`${runtime.url}/api/trees`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
  });

  test('another token is unaffected', async () => {
    await untilRefused(runtime.url, FIRST);
    const other = await fetch(`${runtime.url}/api/trees`, { headers: { Authorization: `Bearer ${SECOND}-x` } });
    expect([401, 429]).toContain(other.status);
    // SECOND has its own count: refused FIRST does not make it wait.
    const answers = await untilRefused(runtime.url, SECOND);
    expect(answers[0]?.status === 200 || answers.length > 1).toBe(true);
  });

  test('the next window restores access', async () => {
    await untilRefused(runtime.url, FIRST);
    if (name === 'node') nextNodeWindow();
    const deadline = Date.now() + 90_000;
    let status = 429;
    while (status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const answer = await get(runtime.url, FIRST);
      await answer.arrayBuffer();
      status = answer.status;
    }
    expect(status).toBe(200);
  }, 120_000);

  test('wrong-token floods are limited per client address', async () => {
    const answers = await untilRefused(runtime.url, 'not-a-token');
    expect(answers.at(-1)?.status).toBe(429);
    expect(answers.slice(0, -1).every((answer) => answer.status === 401)).toBe(true);
  });

  test('a 429 to a request counted by its address says "from this address"', async () => {
    let refused: { status: number; message: string } | undefined;
    for (let sent = 0; sent <= 2 * LIMIT.requests + 1 && refused?.status !== 429; sent++) {
      const answer = await get(runtime.url, sent % 2 === 0 ? null : 'not-a-token-at-all');
      refused = { status: answer.status, message: ((await answer.json()) as { message: string }).message };
    }
    expect(refused).toEqual({ status: 429, message: expect.stringMatching(TOO_MANY_FROM_ADDRESS) });
  });

  test("a client's own CF-Connecting-IP or X-Forwarded-For is not its address: new each time, limited", async () => {
    // The Worker's address is CF-Connecting-IP, which Cloudflare (and `npm run worker`) sets
    // from the socket; the Node server reads the socket's, as no TRUST_PROXY names a proxy.
    const answers = await untilRefused(runtime.url, 'not-a-token', (sent) => ({
      'CF-Connecting-IP': `198.51.100.${sent + 10}`,
      'X-Forwarded-For': `198.51.100.${sent + 10}`,
      Forwarded: `for=198.51.100.${sent + 10}`,
    }));
    expect(answers.at(-1)?.status).toBe(429);
  });

  test("a stranger's wrong tokens at a valid token's address do not make its first request a 429", async () => {
    if (name === 'node') nextNodeWindow();
    // Both runtimes count the socket's address here (npm run worker sets CF-Connecting-IP from it).
    const flood = await untilRefused(runtime.url, 'not-a-token-either');
    expect(flood.at(-1)?.status).toBe(429);
    const first = await get(runtime.url, THIRD);
    await first.arrayBuffer();
    expect(first.status).toBe(200);
  });

  test('GET /healthz, no token: 200, no-store, the status and the data version, no RateLimit-Policy', async () => {
    const answer = await fetch(`${runtime.url}/healthz`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    // Never counted, so it states no quota.
    expect(answer.headers.get('ratelimit-policy')).toBeNull();
    expect(await answer.text()).toBe(healthBody(version));
    const head = await fetch(`${runtime.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});

test('a Worker with API_RATE_LIMIT but no binding refuses the API rather than serve it unlimited', async () => {
  const worker = await startWorker({ port: await freePort(), tokens: [FIRST], vars: { API_RATE_LIMIT: '3/10s' } });
  try {
    const answer = await get(worker.url, FIRST);
    await answer.arrayBuffer();
    expect(answer.status).toBe(500);
  } finally {
    await worker.close();
  }
}, 120_000);

describe('npm run serve', () => {
  let running: RunningServeChild | undefined;
  afterEach(async () => {
    await running?.stop('SIGKILL');
    running = undefined;
  });

  /**
   * The served CLI counts by its own clock, in another process: waits, if needed, until its
   * clock-aligned window has at least 6 s left, so the burst below stays in one.
   */
  async function freshServeWindow(): Promise<void> {
    const into = Date.now() % (LIMIT.seconds * 1000);
    if (into > 4_000) await new Promise((resolve) => setTimeout(resolve, LIMIT.seconds * 1000 - into + 50));
  }

  test('WORKERS=2 holds the limit across processes: a token gets its limit once per window, not twice', async () => {
    running = await startServe({ tokens: [FIRST], processes: 2, rateLimit: '5/10s', accessLog: 'off' });
    await freshServeWindow();
    const statuses = await Promise.all(
      Array.from({ length: 16 }, () => get(running?.url ?? '', FIRST).then((answer) => answer.status)),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(11);
  }, 60_000);

  test("a site page's line counts the bytes sent: the page's length, compressed or not, and 0 for HEAD", async () => {
    running = await startServe({ tokens: [FIRST] });
    const page = await fetch(`${running.url}/`, { headers: { 'Accept-Encoding': 'identity' } });
    const length = (await page.arrayBuffer()).byteLength;
    expect(Number(page.headers.get('content-length'))).toBe(length);
    // fetch decodes the br answer; its Content-Length is what was sent.
    const compressed = await fetch(`${running.url}/`, { headers: { 'Accept-Encoding': 'br' } });
    await compressed.arrayBuffer();
    const sent = Number(compressed.headers.get('content-length'));
    expect(compressed.headers.get('content-encoding')).toBe('br');
    await (await fetch(`${running.url}/`, { method: 'HEAD' })).arrayBuffer();
    await running.stop('SIGTERM');
    const pageLines = running
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{"time"'))
      .map((line) => JSON.parse(line) as { method: string; path: string; bytes: number })
      .filter((line) => line.path === '/');
    expect(pageLines.map(({ method, bytes }) => ({ method, bytes }))).toEqual([
      { method: 'GET', bytes: length },
      { method: 'GET', bytes: sent },
      { method: 'HEAD', bytes: 0 },
    ]);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(length);
  }, 60_000);

  test('a site page gets its line even when its client closes the connection as the last byte arrives', async () => {
    const served = await startServe({ tokens: [FIRST] });
    running = served;
    const { port } = new URL(served.url);
    const pages = 30;
    for (let page = 0; page < pages; page++) await readThenDrop(Number(port), '/');
    const pageLines = () =>
      served
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{"time"') && (JSON.parse(line) as { path: string }).path === '/');
    // Waits for the lines themselves (the log's thread reads them within 20 ms), not for the exit:
    // this rule is about a dropped connection, and the exit's own flush has its test above.
    const deadline = Date.now() + 30_000;
    while (pageLines().length < pages && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pageLines()).toHaveLength(pages);
    await served.stop('SIGTERM');
  }, 60_000);

  test('a reader of stdout that goes away ends the access log, not the server: it serves on, exits 0', async () => {
    running = await startServe({ tokens: [FIRST] });
    // Our end of the pipe closed: the server's next write to stdout fails with EPIPE.
    running.child.stdout?.destroy();
    for (let request = 0; request < 20; request++) {
      const answer = await get(running.url, FIRST);
      await answer.arrayBuffer();
      expect(answer.status).toBe(200);
    }
    const deadline = Date.now() + 30_000;
    while (!running.output().includes('Access log stopped') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running.output()).toContain('Access log stopped: writing to stdout failed (EPIPE).');
    expect((await get(running.url, FIRST)).status).toBe(200);
    const code = await running.stop('SIGTERM');
    expect({ code, output: running.output() }).toEqual({ code: 0, output: running.output() });
  }, 60_000);

  test('the access log: a JSON line per request from each process, no token, its name or digest prefix', async () => {
    running = await startServe({ tokens: [`reader:${FIRST}`, SECOND], processes: 2 });
    const requests = 300;
    await Promise.all(
      Array.from({ length: requests }, (_, index) =>
        get(running?.url ?? '', index % 3 === 0 ? FIRST : index % 3 === 1 ? SECOND : 'wrong').then((answer) =>
          answer.arrayBuffer(),
        ),
      ),
    );
    await running.stop('SIGTERM');
    const output = running.output();
    expect(output).not.toContain(FIRST);
    expect(output).not.toContain(SECOND);
    const records: Record<string, unknown>[] = [];
    for (const line of output.split('\n')) {
      if (line === '' || /^(Tree farm data| {2}Wiki| {2}API| {2}\d+ API token|SIGTERM)/.test(line)) continue;
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        throw new Error(`not a whole JSON line: ${JSON.stringify(line)}`);
      }
    }
    expect(records).toHaveLength(requests);
    const prefix = createHash('sha256').update(SECOND).digest('hex').slice(0, 8);
    // Each line names its own request's token: a hundred requests with each, interleaved.
    const withToken = (token: unknown) => records.filter((record) => record.token === token).length;
    expect([withToken('reader'), withToken(prefix), withToken(null)]).toEqual([100, 100, 100]);
    expect(records[0]).toEqual({
      time: expect.any(String),
      method: 'GET',
      path: '/api/trees?search=Oak%20Tree',
      status: expect.any(Number),
      bytes: expect.any(Number),
      durationMs: expect.any(Number),
      token: records[0]?.token ?? null,
      client: '127.0.0.1',
    });
  }, 60_000);
});

/** GET `path` on a kept-alive connection, read the whole answer, then drop the connection at once (as curl does). */
function readThenDrop(port: number, path: string): Promise<void> {
  return new Promise((done, failed) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: *(\d+)/i.exec(received.subarray(0, headEnd).toString())?.[1]);
      if (headEnd >= 0 && received.length >= headEnd + 4 + length) {
        socket.destroy();
        done();
      }
    });
    socket.on('error', failed);
  });
}
