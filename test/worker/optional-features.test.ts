// A malformed setting of an optional feature turns off that feature alone in the Worker (issue
// 55, finding 7): its own route answers 503 naming the setting, the isolate logs it once, and the
// wiki, the API (or /mcp) and /healthz keep serving, /healthz naming the feature that is off. The
// Worker module in-process, as test/worker/lazy-routes.test.ts runs it, a fresh isolate a test.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test, vi } from 'vitest';

const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));

interface WorkerHandler {
  fetch(request: Request, env: object): Promise<Response>;
}
// Loaded by path: the Worker is typed by workerd's runtime (tsconfig.worker.json), this test by Node's.
const workerModule = '../../src/worker/worker.ts';
const TOKEN = 'optional-features-token';
const ASSETS = {
  async fetch(request: Request | string) {
    const path = new URL(typeof request === 'string' ? request : request.url).pathname.slice(1) || 'index.html';
    try {
      return new Response(new Uint8Array(readFileSync(distDir + path)));
    } catch {
      return new Response('not found', { status: 404 });
    }
  },
};

/** A fresh isolate of the Worker with `vars`, and the lines it logged. */
async function isolate(vars: Record<string, string>) {
  vi.resetModules();
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const { default: worker } = (await import(workerModule)) as { default: WorkerHandler };
  const env = { API_TOKENS: TOKEN, ...vars, ASSETS };
  const fetch = (path: string, init: RequestInit = {}) =>
    worker.fetch(
      new Request(`https://treefarm.example${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${TOKEN}`, ...init.headers },
      }),
      env,
    );
  return { fetch, logged };
}

afterEach(() => vi.restoreAllMocks());

const mcpCall = {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
};

test('a malformed DISCORD_PUBLIC_KEY: the Discord route 503 naming it, logged once; the rest serves', async () => {
  const { fetch, logged } = await isolate({ DISCORD_PUBLIC_KEY: 'not-a-key' });
  const discord = await fetch('/discord/interactions', { method: 'POST', body: '{}' });
  expect(discord.status).toBe(503);
  const { message } = (await discord.json()) as { message: string };
  expect(message).toContain('DISCORD_PUBLIC_KEY');
  expect(message).toContain('"not-a-key"');
  expect((await fetch('/')).status).toBe(200);
  expect((await fetch('/api/trees')).status).toBe(200);
  expect((await fetch('/mcp', mcpCall)).status).toBe(200);
  const health = await fetch('/healthz');
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'ok', disabled: ['discord'] });
  expect((await fetch('/discord/interactions', { method: 'POST', body: '{}' })).status).toBe(503);
  expect(logged).toHaveBeenCalledTimes(1);
  expect(String(logged.mock.calls[0]?.[0])).toContain('DISCORD_PUBLIC_KEY');
});

test('a malformed API_RATE_LIMIT: /api/ and /mcp 503 naming it (never unlimited); the rest serves', async () => {
  const { fetch, logged } = await isolate({ API_RATE_LIMIT: 'lots' });
  for (const answer of [await fetch('/api/trees'), await fetch('/mcp', mcpCall)]) {
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { message: string }).message).toContain('API_RATE_LIMIT');
  }
  expect((await fetch('/')).status).toBe(200);
  expect(await (await fetch('/healthz')).json()).toMatchObject({ status: 'ok', disabled: ['api'] });
  expect(logged).toHaveBeenCalledTimes(1);
});

test('a malformed token list: the API off, naming the variable but never the secret value', async () => {
  const { fetch } = await isolate({ API_TOKEN_SHA256: 'secret-but-no-digest' });
  const answer = await fetch('/api/trees');
  expect(answer.status).toBe(503);
  const text = await answer.text();
  expect(text).toContain('API_TOKEN_SHA256');
  expect(text).not.toContain('secret-but-no-digest');
  expect((await fetch('/')).status).toBe(200);
});

test('every setting well-formed: /healthz names nothing disabled, as the contract states it', async () => {
  const { fetch, logged } = await isolate({});
  const health = (await (await fetch('/healthz')).json()) as Record<string, unknown>;
  expect(Object.keys(health).sort()).toEqual(['dataVersion', 'status']);
  expect(logged).not.toHaveBeenCalled();
});
