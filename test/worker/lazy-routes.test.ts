// The Worker pays for a route only when a request for it comes (src/worker/lazy-route.ts): an
// isolate that serves the API, /healthz and downloads never evaluates the MCP server or the SDK
// (every MCP schema built at import), nor the Discord app. The Worker module in-process, as test/worker/worker.test.ts
// runs it, with the MCP modules watched: each mock counts its evaluations and is the real module.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test, vi } from 'vitest';

// Not test/support's helpers: they start the Node server and the SDK's client, which load both.
const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));

const evaluated = vi.hoisted(() => ({ mcpServer: 0, sdk: 0, discord: 0 }));
vi.mock('../../src/apps/discord/interactions.ts', async (real) => {
  evaluated.discord++;
  return await real();
});
vi.mock('../../src/apps/mcp/answer.ts', async (real) => {
  evaluated.mcpServer++;
  return await real();
});
vi.mock('@modelcontextprotocol/server', async (real) => {
  evaluated.sdk++;
  return await real();
});

interface WorkerHandler {
  fetch(request: Request, env: { ASSETS: { fetch(request: Request | string): Promise<Response> } }): Promise<Response>;
}
// Loaded by path: the Worker is typed by workerd's runtime (tsconfig.worker.json), this test by Node's.
const workerModule = '../../src/worker/worker.ts';
const TOKEN = 'lazy-routes-token';
/** A public key of the right form: no request here is signed by it, so the app answers 401. */
const DISCORD_PUBLIC_KEY = 'a'.repeat(64);
const env = {
  API_TOKENS: TOKEN,
  DISCORD_PUBLIC_KEY,
  ASSETS: {
    async fetch(request: Request | string) {
      const path = new URL(typeof request === 'string' ? request : request.url).pathname.slice(1);
      return new Response(new Uint8Array(readFileSync(distDir + path)));
    },
  },
};
const request = (path: string, init: RequestInit = {}) =>
  new Request(`https://treefarm.example${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, ...init.headers },
  });
const mcpRequest = () =>
  request('/mcp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

test('the Worker evaluates the MCP server and its SDK only when a request for /mcp comes, once', async () => {
  const { default: worker } = (await import(workerModule)) as { default: WorkerHandler };
  expect(evaluated).toEqual({ mcpServer: 0, sdk: 0, discord: 0 });
  expect((await worker.fetch(request('/healthz'), env)).status).toBe(200);
  expect((await worker.fetch(request('/api/trees'), env)).status).toBe(200);
  expect(evaluated).toEqual({ mcpServer: 0, sdk: 0, discord: 0 });

  expect((await worker.fetch(mcpRequest(), env)).status).toBe(200);
  expect((await worker.fetch(mcpRequest(), env)).status).toBe(200);
  expect(evaluated).toEqual({ mcpServer: 1, sdk: 1, discord: 0 });
});

test('the Worker evaluates the Discord app only when a request for /discord/interactions comes, once', async () => {
  const { default: worker } = (await import(workerModule)) as { default: WorkerHandler };
  expect((await worker.fetch(request('/api/trees'), env)).status).toBe(200);
  expect(evaluated.discord).toBe(0);
  const unsigned = () => new Request('https://treefarm.example/discord/interactions', { method: 'POST', body: '{}' });
  expect((await worker.fetch(unsigned(), env)).status).toBe(401);
  expect((await worker.fetch(unsigned(), env)).status).toBe(401);
  expect(evaluated.discord).toBe(1);
});
