// `npm run discord:register` against a local stand-in of Discord's REST API (DISCORD_API_URL):
// the command list the endpoint answers, put as one bulk overwrite for the application or one
// server, idempotent, with the bot token; refusals and missing settings named. No real call.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { projectDir } from '../../src/build/site.ts';
import { DISCORD_COMMANDS } from '../../src/contract/discord/commands.ts';
import { registerCommands } from '../../src/discord/register-cli.ts';
import { registerSettings } from '../../src/discord/settings.ts';

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  userAgent: string | undefined;
  body: unknown;
}

/** Discord's API as far as the command uses it: PUT a list, get it back with ids; one list per place. */
let standIn: Server;
let apiUrl: string;
const received: Received[] = [];
const lists = new Map<string, unknown[]>();
let refuseWith: { status: number; body: string } | undefined;

beforeAll(async () => {
  standIn = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        userAgent: request.headers['user-agent'],
        body,
      });
      if (refuseWith) {
        response.writeHead(refuseWith.status, { 'Content-Type': 'application/json' }).end(refuseWith.body);
        return;
      }
      const list = (body as { name: string }[]).map((command, at) => ({ id: String(1000 + at), ...command }));
      lists.set(request.url ?? '', list);
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(list));
    });
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/api/v10`;
});
afterAll(() => new Promise((resolve) => standIn.close(resolve)));
beforeEach(() => {
  received.length = 0;
  lists.clear();
  refuseWith = undefined;
});

const settings = (env: Record<string, string> = {}) =>
  registerSettings({ DISCORD_APPLICATION_ID: '123', DISCORD_BOT_TOKEN: 'bot-token', DISCORD_API_URL: apiUrl, ...env });

test("puts the endpoint's own command list to the application's commands, with the bot token", async () => {
  const names = await registerCommands(settings());
  expect(names).toEqual(['tree', 'cutter', 'gift', 'storage', 'vehicle', 'plot', 'plan', 'changes']);
  expect(received).toEqual([
    {
      method: 'PUT',
      url: '/api/v10/applications/123/commands',
      authorization: 'Bot bot-token',
      userAgent: expect.stringMatching(/^DiscordBot \(/),
      body: DISCORD_COMMANDS,
    },
  ]);
});

test('is idempotent: a second run puts the same list, and Discord holds one list', async () => {
  await registerCommands(settings());
  await registerCommands(settings());
  expect(received).toHaveLength(2);
  expect(received[1]?.body).toEqual(received[0]?.body);
  expect([...lists.keys()]).toEqual(['/api/v10/applications/123/commands']);
});

test('DISCORD_GUILD_ID registers to that server alone', async () => {
  await registerCommands(settings({ DISCORD_GUILD_ID: '456' }));
  expect(received[0]?.url).toBe('/api/v10/applications/123/guilds/456/commands');
});

test("a refusal says Discord's status and message", async () => {
  refuseWith = { status: 401, body: JSON.stringify({ message: '401: Unauthorized', code: 0 }) };
  await expect(registerCommands(settings())).rejects.toThrow(
    'Discord refused the commands: 401 401: Unauthorized (check DISCORD_BOT_TOKEN)',
  );
});

test('the settings name a bad id and a bad API URL', () => {
  expect(() => settings({ DISCORD_APPLICATION_ID: 'my-app' })).toThrow(
    /DISCORD_APPLICATION_ID must be a Discord id \(digits/,
  );
  expect(() => settings({ DISCORD_API_URL: 'ftp://example' })).toThrow(/DISCORD_API_URL must be an http or https URL/);
});

/** Runs `npm run discord:register`'s file with `env`; its exit code and output. */
function runCli(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(projectDir, 'src/discord/register-cli.ts')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('the command prints what it registered where', async () => {
  const run = await runCli({
    DISCORD_APPLICATION_ID: '123',
    DISCORD_BOT_TOKEN: 'bot-token',
    DISCORD_GUILD_ID: '456',
    DISCORD_API_URL: apiUrl,
  });
  expect(run).toEqual({
    code: 0,
    stdout: 'Registered 8 commands for server 456: /tree, /cutter, /gift, /storage, /vehicle, /plot, /plan, /changes\n',
    stderr: '',
  });
});

test('the command without the application or its token stops, naming both, and calls nothing', async () => {
  const run = await runCli({ DISCORD_API_URL: apiUrl });
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    'Cannot register the commands: DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN must be set ' +
      '(the developer portal shows both; docs/discord.md)\n',
  );
  expect(received).toEqual([]);
});
