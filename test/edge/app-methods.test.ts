// The apps of the seam (src/edge/apps.ts) answer a method outside their own with their 405 and
// Allow in every runtime, before anything is built from the request: on the Node server a method
// that `new Request` refuses (TRACE) is no 500 and prints no stack (issue 55, finding 3).
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { DISCORD_PATH } from '../../src/apps/discord/bounds.ts';
import { MCP_PATH } from '../../src/apps/mcp/bounds.ts';
import { discordKeys } from '../support/discord.ts';
import { rawRequest } from '../support/http.ts';
import { type Runtime, runtimeNames, startRuntime } from '../support/runtimes.ts';

const TOKEN = 'app-methods-token';
/** Methods outside POST that both runtimes' parsers take: one that `new Request` refuses, and others it accepts. */
const METHODS = ['TRACE', 'PROPFIND', 'PATCH', 'PUT'];

describe.each(runtimeNames)('%s', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: [TOKEN], discordPublicKey: (await discordKeys()).publicKeyHex });
  });
  afterAll(() => runtime?.close());

  test.each(METHODS)('%s /mcp with a valid token: 405 with Allow: POST, no stack', async (method) => {
    const logged = vi.spyOn(console, 'error');
    const response = await rawRequest(runtime.url, {
      method,
      target: MCP_PATH,
      headers: [
        ['Authorization', `Bearer ${TOKEN}`],
        ['Connection', 'close'],
      ],
    });
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toBe('POST');
    expect(response.body.toString()).not.toMatch(/\bat \S+:\d+|\/src\/|node_modules/);
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
  });

  test.each(METHODS)('%s /discord/interactions: 405 with Allow: POST, no stack', async (method) => {
    const logged = vi.spyOn(console, 'error');
    const response = await rawRequest(runtime.url, {
      method,
      target: DISCORD_PATH,
      headers: [['Connection', 'close']],
    });
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toBe('POST');
    expect(response.body.toString()).not.toMatch(/\bat \S+:\d+|\/src\/|node_modules/);
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
  });

  test('TRACE /mcp without a token is the 401, as any method is before the token', async () => {
    const response = await rawRequest(runtime.url, {
      method: 'TRACE',
      target: MCP_PATH,
      headers: [['Connection', 'close']],
    });
    expect(response.status).toBe(401);
  });
});
