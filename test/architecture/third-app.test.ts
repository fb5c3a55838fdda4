// A third app is a folder and one line in the table of mounts (docs/architecture.md, "The edge's
// apps"): the test-only echo app (test/fixtures/apps/echo/) is mounted beside src/apps/mounts.ts's
// apps, nothing else edited, and answers in the Node server and in the Worker module (in-process,
// test/support/in-process-worker.ts) alike: behind the API's token, with its own 405 and its
// own preflight.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MOUNTS } from '../../src/apps/mounts.ts';
import { startServer } from '../../src/server/http-server.ts';
import { ECHO_METHODS, ECHO_PATH, ECHO_PREFLIGHT_HEADERS, echoMount } from '../fixtures/apps/echo/mount.ts';
import { type WorkerFetch, inProcessWorker } from '../support/in-process-worker.ts';
import { distDir } from '../support/runtimes.ts';

/** The table with one line more. */
const withEcho = [...MOUNTS, echoMount];
const TOKEN = 'third-app-token';
const manifest = JSON.parse(readFileSync(join(distDir, 'manifest.json'), 'utf8')) as { version: string };

const runtimes: Record<string, { fetch?: WorkerFetch; close?: () => Promise<void> }> = { node: {}, worker: {} };

beforeAll(async () => {
  const server = await startServer({ distDir, tokens: [TOKEN], apps: withEcho });
  runtimes['node'] = { fetch: (path, init) => fetch(server.url + path, init), close: () => server.close(0) };
  runtimes['worker'] = { fetch: await inProcessWorker(withEcho, { API_TOKENS: TOKEN }) };
});
afterAll(async () => {
  await runtimes['node']?.close?.();
});

const bearer = { Authorization: `Bearer ${TOKEN}` };

describe.each(['node', 'worker'])('the echo app in %s', (name) => {
  const send: WorkerFetch = (path, init) => {
    const fetchIn = runtimes[name]?.fetch;
    if (!fetchIn) throw new Error(`${name} did not start`);
    return fetchIn(path, init);
  };

  test('it answers at its path what it was sent, from the build the runtime serves', async () => {
    const response = await send(ECHO_PATH, { method: 'POST', headers: bearer, body: 'hello' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ method: 'POST', body: 'hello', dataVersion: manifest.version });
    expect(response.headers.get('x-data-version')).toBe(manifest.version);
  });

  test('as a guarded app, it answers nothing without a valid token', async () => {
    expect((await send(ECHO_PATH, { method: 'POST', body: 'hello' })).status).toBe(401);
  });

  test('a method outside its own gets its own 405 and Allow', async () => {
    const response = await send(ECHO_PATH, { method: 'PUT', headers: bearer, body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(ECHO_METHODS);
    expect(await response.text()).toBe('echo takes POST, not PUT\n');
  });

  test('its preflight is its own', async () => {
    const response = await send(ECHO_PATH, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    for (const [header, value] of Object.entries(ECHO_PREFLIGHT_HEADERS))
      expect(response.headers.get(header)).toBe(value);
  });

  test('below its path is the static site', async () => {
    expect((await send(`${ECHO_PATH}/`, { method: 'POST', headers: bearer, body: 'x' })).status).toBe(405);
    expect((await send(`${ECHO_PATH}/`)).status).not.toBe(200);
  });
});
