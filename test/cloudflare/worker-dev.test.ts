// The local Worker launcher (src/cloudflare/worker-dev.ts): wrangler runs as a process group of
// its own, and closing it ends every process of that group (its CLI, esbuild, workerd), so
// a test run leaves nothing behind: each stray workerd held gigabytes of memory. Tokens reach
// wrangler in a private file, never on a command line any local user can read.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/build/site.ts';
import { settingsFromEnvironment, workerDevVariables } from '../../src/server/settings.ts';
import { runConfig, startWorker, WORKER_ROUTES, workerOptionsFrom, writeEnvFile } from '../../src/cloudflare/worker-dev.ts';
import { exitOf, outputUntil } from '../support/child-output.ts';
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
  const cli = spawn(process.execPath, ['src/cloudflare/worker-dev.ts'], {
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

/** The processes below one, its children and theirs. */
const descendantsOf = (pid: number): number[] =>
  spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .flatMap((child) => [Number(child), ...descendantsOf(Number(child))]);

/** Whether a process of this id is still there. */
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('SIGTERM to npm run worker stops the Worker itself, and it leaves none of its temporary files', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'worker-dev-tmp-'));
  // With API_RATE_LIMIT the run writes a wrangler config of its own beside the env file.
  const env = { ...process.env, TMPDIR: tmp, PORT: String(await freePort()), API_TOKENS: 't' };
  const npm = spawn('npm', ['run', 'worker'], { cwd: projectDir, env: { ...env, API_RATE_LIMIT: '100/60s' } });
  let cli = 0;
  try {
    await outputUntil(npm, /Worker \(workerd, local\): /);
    cli = descendantsOf(npm.pid ?? 0).find((pid) => commandLine(String(pid)).includes('src/cloudflare/worker-dev.ts')) ?? 0;
    expect(cli).toBeGreaterThan(0);
    expect(readdirSync(tmp).filter((name) => name.startsWith('treefarm-worker-'))).toHaveLength(2);
    npm.kill('SIGTERM');
    await exitOf(npm);
    // npm ends once the CLI has: no Worker left serving, no file of the run left.
    expect(running(cli)).toBe(false);
    expect(readdirSync(tmp).filter((name) => name.startsWith('treefarm-'))).toEqual([]);
  } finally {
    if (cli && running(cli)) process.kill(cli, 'SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  }
}, 90_000);

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

/** A folder with these files, removed after `use`. */
async function withFiles(files: Record<string, string>, use: (folder: string) => Promise<void> | void): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'worker-dev-files-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(folder, path)), { recursive: true });
      writeFileSync(join(folder, path), text);
    }
    await use(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test('npm run worker serves the local R2 bucket R2_BUCKET names, as npm run deploy -- --local fills it', async () => {
  const env = { BODIES: 'r2', R2_BUCKET: 'treefarm-other', API_TOKENS: 't', PORT: String(await freePort()) };
  const options = workerOptionsFrom(settingsFromEnvironment(env, workerDevVariables));
  // A small build, so the run seeds a few objects into a local R2 of its own.
  const build = {
    'index.html': '<h1>wiki</h1>',
    'api/bodies/aaaa': 'body a',
    'api/index/current/root.json': '{"version":"v1","shards":1,"nearGroup":3}',
    'api/index/current/0.json': '{"trees/list":"aaaa"}',
  };
  await withFiles(build, async (dist) => {
    const worker = await startWorker({ ...options, assetsDir: dist, persistDir: join(dist, '.state') });
    try {
      const wrangler = groupMembers(worker.process.pid ?? 0)
        .map((pid) => commandLine(pid))
        .find((line) => line.includes('--config'));
      const config = readFileSync(wrangler?.[wrangler.indexOf('--config') + 1] ?? '', 'utf8');
      expect(config).toMatch(/^bucket_name = "treefarm-other"$/m);
    } finally {
      await worker.close();
    }
  });
}, 90_000);

describe('the R2 mode is chosen with BODIES=r2, never by editing wrangler.toml', () => {
  const shipped = readFileSync(join(projectDir, 'wrangler.toml'), 'utf8');
  const routes = `run_worker_first = ${JSON.stringify(WORKER_ROUTES)}`;

  test("the shipped wrangler.toml makes each run's R2 config: the routes, the bucket, paths made absolute", () => {
    const config = runConfig(projectDir, undefined, WORKER_ROUTES, { name: 'treefarm-other', remote: true });
    try {
      const text = readFileSync(config.path, 'utf8');
      expect(text).toContain(`\n${routes}\n`);
      expect(text).toContain(
        '\n[[r2_buckets]]\nbinding = "API_BUCKET"\nbucket_name = "treefarm-other"\nremote = true\n',
      );
      expect(text).toContain(`main = ${JSON.stringify(join(projectDir, 'src/worker/worker.ts'))}`);
    } finally {
      config.remove();
    }
  });

  const byHand = {
    'the routes': shipped.replace(/^run_worker_first = true$/m, routes),
    'the bucket binding': `${shipped}\n[[r2_buckets]]\nbinding = "API_BUCKET"\nbucket_name = "treefarm-data-api"\n`,
    API_INDEX: `${shipped}\n[vars]\nAPI_INDEX = "0123"\n`,
  };
  test.each(Object.entries(byHand))('a wrangler.toml given %s by hand is refused, naming the line', (_, text) =>
    withFiles({ 'wrangler.toml': text }, (folder) => {
      const line = /^(run_worker_first = \[.*|binding = "API_BUCKET"|API_INDEX = "0123")$/m.exec(text)?.[0];
      expect(() => runConfig(folder, undefined, WORKER_ROUTES)).toThrow(
        `wrangler.toml in ${folder} sets up the R2 mode by hand (${line}): BODIES=r2 adds the R2 mode's routes, ` +
          "bucket and API_INDEX to each run's config itself, so keep wrangler.toml in the assets-only mode, as " +
          'shipped (run_worker_first = true, no API_BUCKET, no API_INDEX)',
      );
    }),
  );
});
