// `npm run discord:register` against a local stand-in of Discord's REST API (DISCORD_API_URL):
// the command list the endpoint answers, put as one bulk overwrite for the application or one
// server, idempotent, with the bot token and Discord's User-Agent form; each way Discord can
// answer badly (a 429, a 400's error tree, 401, 403, a body not JSON, no answer at all) said
// plainly. No real call.
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { type CommandBounds, commandNames, discordCommands } from '../../src/apps/discord/commands.ts';
import { errorLines, MAX_TRIES } from '../../src/apps/discord/cli/discord-api.ts';
import { distBounds } from '../../src/apps/discord/cli/dist-bounds.ts';
import { registerCommands } from '../../src/apps/discord/cli/register-cli.ts';
import { registerSettings } from '../../src/apps/discord/cli/settings.ts';
import { distDir } from '../support/runtimes.ts';

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  userAgent: string | undefined;
  body: unknown;
}

/** An answer the stand-in gives instead of Discord's success; 'silent' never answers. */
type Scripted = { status: number; body: string; contentType?: string } | 'silent';

/** Discord's API as far as the command uses it: PUT a list, get it back with ids; one list per place. */
let standIn: Server;
let apiUrl: string;
const received: Received[] = [];
const lists = new Map<string, unknown[]>();
/** The answers to give, in order, before answering as Discord does. */
const script: Scripted[] = [];
/** Answers held open by a silent stand-in, ended when the test is over. */
const held: ServerResponse[] = [];

const json = (status: number, body: object): Scripted => ({ status, body: JSON.stringify(body) });

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
      const scripted = script.shift();
      if (scripted === 'silent') {
        held.push(response);
        return;
      }
      if (scripted) {
        const contentType = scripted.contentType ?? 'application/json';
        response.writeHead(scripted.status, { 'Content-Type': contentType }).end(scripted.body);
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
afterAll(() => {
  standIn.closeAllConnections();
  return new Promise((resolve) => standIn.close(resolve));
});
beforeEach(() => {
  for (const response of held.splice(0)) response.destroy();
  received.length = 0;
  lists.clear();
  script.length = 0;
});

const BOUNDS: CommandBounds = { topLevel: 100, plots: [{ level: 1, growthSpeed: 100 }] };
const settings = (env: Record<string, string> = {}) =>
  registerSettings({ DISCORD_APPLICATION_ID: '123', DISCORD_BOT_TOKEN: 'bot-token', DISCORD_API_URL: apiUrl, ...env });
const register = (env: Record<string, string> = {}) => registerCommands(settings(env), BOUNDS);

/** Discord's rate-limit answer, asking to wait `seconds`. */
const rateLimited = (seconds: number) =>
  json(429, { message: 'You are being rate limited.', retry_after: seconds, global: false });
/** Discord's 50035 for a description too long, as it names the field. */
const invalidForm = json(400, {
  code: 50035,
  message: 'Invalid Form Body',
  errors: {
    '0': {
      options: {
        '0': {
          description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 100 or fewer in length.' }] },
        },
      },
    },
  },
});
const missingAccess = json(403, { message: 'Missing Access', code: 50001 });

test("puts the endpoint's own command list to the application's commands, with the bot token", async () => {
  const names = await register();
  expect(names).toEqual([...commandNames]);
  expect(received).toEqual([
    {
      method: 'PUT',
      url: '/api/v10/applications/123/commands',
      authorization: 'Bot bot-token',
      userAgent: expect.any(String),
      body: JSON.parse(JSON.stringify(discordCommands(BOUNDS))),
    },
  ]);
});

test("its User-Agent is Discord's form, DiscordBot ($url, $versionNumber)", async () => {
  await register();
  expect(received[0]?.userAgent).toMatch(/^DiscordBot \(https:\/\/\S+, \d+\.\d+\.\d+\)$/);
});

test('every command is installable to a server and by a user, and usable in servers, DMs and group DMs', () => {
  for (const command of discordCommands(BOUNDS)) {
    expect(command.integration_types).toEqual([0, 1]);
    expect(command.contexts).toEqual([0, 1, 2]);
  }
});

test('is idempotent: a second run puts the same list, and Discord holds one list', async () => {
  await register();
  await register();
  expect(received).toHaveLength(2);
  expect(received[1]?.body).toEqual(received[0]?.body);
  expect([...lists.keys()]).toEqual(['/api/v10/applications/123/commands']);
});

test('DISCORD_GUILD_ID registers to that server alone', async () => {
  await register({ DISCORD_GUILD_ID: '456' });
  expect(received[0]?.url).toBe('/api/v10/applications/123/guilds/456/commands');
});

test('a 429 is retried after the retry_after Discord gives, and the run then succeeds', async () => {
  script.push(rateLimited(0.05), rateLimited(0.05));
  const waits: number[] = [];
  const names = await registerCommands(settings(), BOUNDS, (seconds) => waits.push(seconds));
  expect(names).toHaveLength(commandNames.length);
  expect(waits).toEqual([0.05, 0.05]);
  expect(received).toHaveLength(3);
});

test(`a 429 is retried ${MAX_TRIES} times at most, then reported`, async () => {
  script.push(...Array.from({ length: MAX_TRIES + 1 }, () => rateLimited(0.01)));
  await expect(register()).rejects.toThrow(
    `Discord is rate limiting the commands (429, retry after 0.01 s) after ${MAX_TRIES} tries`,
  );
  expect(received).toHaveLength(MAX_TRIES);
});

test('a 429 asking to wait longer than a minute is reported, not waited for', async () => {
  script.push(rateLimited(3600));
  await expect(register()).rejects.toThrow('retry after 3600 s) after 1 try: run it again later.');
});

test("a 400's error tree is shown as field paths", async () => {
  script.push(invalidForm);
  await expect(register()).rejects.toThrow(
    'Discord refused the commands: 400 Invalid Form Body (code 50035)\n' +
      '  [0].options[0].description: Must be 100 or fewer in length. (BASE_TYPE_MAX_LENGTH)',
  );
});

test('an error tree with errors at several depths lists each', () => {
  expect(
    errorLines({ name: { _errors: [{ code: 'A', message: 'a' }] }, '2': { _errors: [{ message: 'b' }] } }),
  ).toEqual(['[2]: b', 'name: a (A)']);
});

test('a 401 says to check the bot token', async () => {
  script.push(json(401, { message: '401: Unauthorized', code: 0 }));
  await expect(register()).rejects.toThrow(
    'Discord refused the commands: 401 401: Unauthorized (code 0)\n  Check DISCORD_BOT_TOKEN',
  );
});

test('a 403 on a server says to install the app there first', async () => {
  script.push(missingAccess);
  await expect(register({ DISCORD_GUILD_ID: '456' })).rejects.toThrow(
    'Discord refused the commands: 403 Missing Access (code 50001)\n' +
      '  Missing Access: install the app in server 456 first',
  );
});

test('a 200 that is not JSON is reported plainly, never as a SyntaxError', async () => {
  script.push({ status: 200, body: '<html>Welcome to nginx!</html>', contentType: 'text/html' });
  const refused = register();
  await expect(refused).rejects.toThrow(
    'Discord\'s API answered 200 with a body that is not JSON (text/html): "<html>Welcome to nginx!</html>".',
  );
  await expect(refused).rejects.not.toThrow(/SyntaxError|JSON\.parse/);
});

test('an API that never answers is given up after DISCORD_API_TIMEOUT seconds', async () => {
  script.push('silent');
  await expect(register({ DISCORD_API_TIMEOUT: '1' })).rejects.toThrow(
    `Discord's API (${apiUrl}/applications/123/commands) did not answer within 1 s`,
  );
});

test('the settings name a bad id, a bad API URL and a bad timeout', () => {
  expect(() => settings({ DISCORD_APPLICATION_ID: 'my-app' })).toThrow(
    /DISCORD_APPLICATION_ID must be a Discord id \(digits/,
  );
  expect(() => settings({ DISCORD_API_URL: 'ftp://example' })).toThrow(/DISCORD_API_URL must be an http or https URL/);
  expect(() => settings({ DISCORD_API_TIMEOUT: '0' })).toThrow(/DISCORD_API_TIMEOUT must be a whole number from 1/);
});

test("the level options are bounded by the build's data: the top farm level, the plots as choices", async () => {
  const bounds = await distBounds(distDir);
  const byName = new Map<string, ReturnType<typeof discordCommands>[number]>(
    discordCommands(bounds).map((command) => [command.name, command]),
  );
  const options = (name: string) => new Map((byName.get(name)?.options ?? []).map((option) => [option.name, option]));
  expect(options('plan').get('level')).toMatchObject({ min_value: 1, max_value: bounds.topLevel });
  expect(options('plot').get('level')).toMatchObject({
    max_value: Math.max(...bounds.plots.map((plot) => plot.level)),
  });
  expect(options('plan').get('plot')).toMatchObject({
    choices: bounds.plots.map(({ level, growthSpeed }) => ({
      name: `Level ${level} (${growthSpeed}% growth speed)`,
      value: level,
    })),
  });
  expect(bounds.topLevel).toBeGreaterThan(1);
});

/** Runs `npm run discord:register` with `env`; its exit code and output. */
function runCli(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', 'discord:register'], {
    cwd: projectDir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
const cliEnv = { DISCORD_APPLICATION_ID: '123', DISCORD_BOT_TOKEN: 'bot-token', DISCORD_API_URL: '' };
const cli = (env: Record<string, string> = {}) => runCli({ ...cliEnv, DISCORD_API_URL: apiUrl, ...env });
const ALL = commandNames.map((name) => `/${name}`).join(', ');

test('npm run discord:register prints what it registered where', async () => {
  expect(await cli({ DISCORD_GUILD_ID: '456' })).toEqual({
    code: 0,
    stdout: `Registered 8 commands for server 456: ${ALL}\n`,
    stderr: '',
  });
});

test('npm run discord:register: a 429, then success', async () => {
  script.push(rateLimited(0.05));
  expect(await cli()).toEqual({
    code: 0,
    stdout:
      'Discord asked to wait (429): trying again in 0.05 s (try 2).\n' +
      `Registered 8 commands for wherever the app is installed: ${ALL}\n`,
    stderr: '',
  });
});

test('npm run discord:register: a 50035 names the field', async () => {
  script.push(invalidForm);
  const run = await cli();
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    'Cannot register the commands: Discord refused the commands: 400 Invalid Form Body (code 50035)\n' +
      '  [0].options[0].description: Must be 100 or fewer in length. (BASE_TYPE_MAX_LENGTH)\n',
  );
});

test("npm run discord:register: a 403's hint", async () => {
  script.push(missingAccess);
  const run = await cli({ DISCORD_GUILD_ID: '456' });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('Missing Access: install the app in server 456 first (docs/discord.md');
});

test('npm run discord:register: a silent API is given up with a clear line', async () => {
  script.push('silent');
  const run = await cli({ DISCORD_API_TIMEOUT: '1' });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^Cannot register the commands: Discord's API \(\S+\) did not answer within 1 s;.*\n$/);
});

test('npm run discord:register without the application or its token stops, naming both, calling nothing', async () => {
  const run = await runCli({ DISCORD_API_URL: apiUrl });
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    'Cannot register the commands: DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN must be set ' +
      '(the developer portal shows both; docs/discord.md)\n',
  );
  expect(received).toEqual([]);
});
