// The local Worker launcher (src/server/worker-dev.ts): wrangler runs as a process group of
// its own, and closing it ends every process of that group (its CLI, esbuild, workerd), so
// a test run leaves nothing behind: each stray workerd held gigabytes of memory. Tokens reach
// wrangler in a private file, never on a command line any local user can read.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/build/site.ts';
import { startWorker, writeEnvFile } from '../../src/server/worker-dev.ts';
import { distDir, freePort } from '../support/runtimes.ts';

/** The processes of a process group, by the group's id. */
const groupMembers = (groupId: number) =>
  spawnSync('pgrep', ['-g', String(groupId)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);

test('closing the local Worker ends wrangler, esbuild and workerd: no process of its group is left', async () => {
  const worker = await startWorker({ port: await freePort(), assetsDir: distDir, tokens: ['t'] });
  const groupId = worker.process.pid ?? 0;
  // wrangler's CLI starts workerd (and esbuild) in the group.
  expect(groupMembers(groupId).length).toBeGreaterThan(1);
  await worker.close();
  // Killed processes leave the table once reaped: wait for that, up to 10 s.
  for (let waited = 0; groupMembers(groupId).length > 0 && waited < 10_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(groupMembers(groupId)).toEqual([]);
});

/** `npm run worker`'s process (the CLI of worker-dev.ts), its output collected. */
function startCli(port: number): { cli: ChildProcess; output: () => string } {
  const cli = spawn(process.execPath, ['src/server/worker-dev.ts'], {
    cwd: projectDir,
    env: { ...process.env, PORT: String(port), API_TOKENS: 't' },
  });
  let output = '';
  cli.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  cli.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { cli, output: () => output };
}

/** Resolves when `check` is true, polling every 100 ms for up to `limitMs`. */
async function waitFor(check: () => boolean, limitMs: number): Promise<void> {
  for (let waited = 0; !check() && waited < limitMs; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The process group wrangler runs in: its leader is the CLI's child. */
const wranglerGroupOf = (cli: ChildProcess) =>
  Number(spawnSync('pgrep', ['-P', String(cli.pid)], { encoding: 'utf8' }).stdout.split('\n')[0] || 0);

test('npm run worker stopped while wrangler starts: the CLI exits and no process of the group is left', async () => {
  const { cli } = startCli(await freePort());
  await waitFor(() => wranglerGroupOf(cli) > 0, 30_000);
  const groupId = wranglerGroupOf(cli);
  expect(groupId).toBeGreaterThan(0);
  const exited = new Promise((resolve) => cli.once('exit', resolve));
  cli.kill('SIGTERM');
  await exited;
  await waitFor(() => groupMembers(groupId).length === 0, 10_000);
  expect(groupMembers(groupId)).toEqual([]);
}, 60_000);

/** Every argument of a process's command line (Linux). */
const commandLine = (pid: string) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

test('tokens reach wrangler in a 0600 file, on no command line, and the Worker takes them as they are', async () => {
  // A token with the characters a dotenv file treats specially: $ (expanded), # (a comment), a space.
  const token = 'local $HOME #secret token';
  const worker = await startWorker({ port: await freePort(), assetsDir: distDir, tokens: [token] });
  let envFile = '';
  try {
    const members = groupMembers(worker.process.pid ?? 0);
    const lines = members.map((pid) => commandLine(pid));
    expect(lines.filter((line) => line.some((argument) => argument.includes('secret')))).toEqual([]);
    const wrangler = lines.find((line) => line.includes('--env-file')) ?? [];
    envFile = wrangler[wrangler.indexOf('--env-file') + 1] ?? '';
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const answer = await fetch(`${worker.url}/api/trees?search=Oak%20Tree`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(200);
  } finally {
    await worker.close();
  }
  expect(existsSync(envFile)).toBe(false);
}, 90_000);

test('a variable the env file cannot hold is refused, naming it', () => {
  expect(() => writeEnvFile({ API_TOKENS: "it's" })).toThrow(/^API_TOKENS holds a quote, backslash or line break/);
});
