// The local Worker launcher (src/cloudflare/worker-dev.ts): wrangler's programmatic API runs
// the Worker in workerd, and closing it, or stopping `npm run worker`, ends every workerd it
// started, so a test run leaves nothing behind (each stray workerd held gigabytes of memory).
// Tokens reach the Worker in memory: on no command line, in no file. The R2 mode's config is
// one object made from wrangler.toml (src/cloudflare/r2-run.ts), never an edited copy.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { r2RunConfig, WORKER_ROUTES } from '../../src/cloudflare/r2-run.ts';
import { startWorker, workerOptionsFrom } from '../../src/cloudflare/worker-dev.ts';
import { DEFAULT_BUCKET, settingsFromEnvironment, workerDevVariables } from '../../src/server/settings.ts';
import { exitOf, outputUntil } from '../support/child-output.ts';
import { withLocalBucket } from '../support/local-bucket.ts';
import { distDir, freePort } from '../support/runtimes.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

/** The processes below one, its children and theirs. */
const descendantsOf = (pid: number): number[] =>
  spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .flatMap((child) => [Number(child), ...descendantsOf(Number(child))]);

/** Every argument of a process's command line (Linux); none once it is gone. */
const commandLine = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};

/** The workerd processes below a process. */
const workerdBelow = (pid: number) =>
  descendantsOf(pid).filter((child) => /workerd$/.test(commandLine(child)[0] ?? ''));

/** Whether a process of this id is still there, and not a zombie left to be reaped. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Resolves when `check` is true, looking every 100 ms for up to `limitMs`. */
async function waitFor(check: () => boolean, limitMs: number): Promise<void> {
  for (let waited = 0; !check() && waited < limitMs; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
}

test('closing the local Worker stops the workerd processes it started and waits for them', async () => {
  const worker = await startWorker({ port: await freePort(), assetsDir: distDir, tokens: ['t'] });
  const started = workerdBelow(process.pid);
  expect(started.length).toBeGreaterThan(0);
  await worker.close();
  // wrangler's dispose resolves once workerd has exited.
  expect(started.filter(alive)).toEqual([]);
});

/** `npm run worker`'s process (the CLI of worker-dev.ts) with these variables and a TMPDIR of its own. */
function startCli(env: Record<string, string>): { cli: ChildProcess; tmp: string; remove(): void } {
  const tmp = temporaryFolder('worker-dev-tmp-');
  const cli = spawn(process.execPath, ['src/cloudflare/worker-dev.ts'], {
    cwd: projectDir,
    env: { ...process.env, TMPDIR: tmp, ...env },
  });
  const remove = () => {
    // SIGTERM, never SIGKILL: the CLI then exits through its exit hooks, which stop its workerd;
    // killed outright, it would leave workerd running with no parent.
    if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  };
  return { cli, tmp, remove };
}

test('npm run worker stopped while wrangler starts: the CLI exits and no workerd of it is left', async () => {
  const { cli, remove } = startCli({ PORT: String(await freePort()), API_TOKENS: 't' });
  try {
    // The first workerd is there while the Worker is still being loaded.
    await waitFor(() => workerdBelow(cli.pid ?? 0).length > 0, 30_000);
    const started = workerdBelow(cli.pid ?? 0);
    expect(started.length).toBeGreaterThan(0);
    cli.kill('SIGTERM');
    await exitOf(cli);
    await waitFor(() => !started.some(alive), 10_000);
    expect(started.filter(alive)).toEqual([]);
  } finally {
    remove();
  }
}, 60_000);

test('SIGTERM to npm run worker stops the Worker itself, and it leaves none of its temporary files', async () => {
  // The R2 mode writes a config and the assets without the API for the run; wrangler its own folders.
  const env = { PORT: String(await freePort()), API_TOKENS: 't', API_RATE_LIMIT: '100/60s', BODIES: 'r2' };
  const { cli, tmp, remove } = startCli(env);
  try {
    await outputUntil(cli, /Worker \(workerd, local\): /);
    const ours = () => readdirSync(tmp).map((name) => name.replace(/-\w+$/, '-'));
    expect(ours()).toEqual(expect.arrayContaining(['treefarm-assets-', 'treefarm-worker-', 'miniflare-']));
    const started = workerdBelow(cli.pid ?? 0);
    cli.kill('SIGTERM');
    await exitOf(cli);
    // Node's own compile cache (its tools enable it in the temporary folder) is kept by design.
    expect(readdirSync(tmp).filter((name) => name !== 'node-compile-cache')).toEqual([]);
    await waitFor(() => !started.some(alive), 10_000);
    expect(started.filter(alive)).toEqual([]);
  } finally {
    remove();
  }
}, 120_000);

/** Every file below a folder, recursively. */
const filesBelow = (folder: string) =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

test('tokens reach the Worker on no command line and in no file, and it takes them as they are', async () => {
  // A token with what a dotenv file or a shell treats specially: $ (expanded), # (a comment), quotes,
  // a backslash, spaces.
  const token = `local $HOME #secret 'quoted' "double" back\\slash`;
  const { cli, tmp, remove } = startCli({ PORT: String(await freePort()), API_TOKENS: token });
  try {
    const output = await outputUntil(cli, /Worker \(workerd, local\): (\S+)\//);
    const url = /Worker \(workerd, local\): (\S+)\//.exec(output)?.[1] ?? '';
    const lines = descendantsOf(cli.pid ?? 0).map(commandLine);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.some((argument) => argument.includes('secret')))).toEqual([]);
    expect(filesBelow(tmp).filter((file) => readFileSync(file).includes('secret'))).toEqual([]);
    const answer = await fetch(`${url}/api/trees?search=Oak%20Tree`, { headers: { Authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
  } finally {
    remove();
  }
}, 90_000);

/** A folder with these files, removed after `use`. */
async function withFiles(files: Record<string, string>, use: (folder: string) => Promise<void> | void): Promise<void> {
  const folder = temporaryFolder('worker-dev-files-');
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

const shipped = readFileSync(join(projectDir, 'wrangler.toml'), 'utf8');

test("a .dev.vars beside wrangler.toml is not read: the Worker's tokens are npm run worker's alone", async () => {
  const other = 'a token of .dev.vars';
  const sha256 = createHash('sha256').update(other).digest('hex');
  // The project's wrangler.toml, its entry by its absolute path, in a folder with a .dev.vars.
  const config = shipped.replace(/^main = "(.*)"$/m, (_, main: string) => `main = "${join(projectDir, main)}"`);
  await withFiles({ 'wrangler.toml': config, '.dev.vars': `API_TOKEN_SHA256=${sha256}\n` }, async (folder) => {
    const worker = await startWorker({ port: await freePort(), cwd: folder, assetsDir: distDir, tokens: ['t'] });
    try {
      const status = (token: string) =>
        fetch(`${worker.url}/api/trees`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
      expect(await status('t')).toBe(200);
      expect(await status(other)).toBe(401);
    } finally {
      await worker.close();
    }
  });
}, 90_000);

const brokenWorkers = {
  'cannot be built': 'export default { fetch( };\n',
  'throws as it loads': 'throw new Error("at load");\nexport default { fetch: () => new Response("") };\n',
};
test.each(Object.entries(brokenWorkers))(
  "a Worker that %s is refused with wrangler's reason, no workerd left",
  (_, code) =>
    withFiles(
      {
        'wrangler.toml': 'name = "broken"\nmain = "worker.js"\ncompatibility_date = "2026-11-17"\n',
        'worker.js': code,
      },
      async (folder) => {
        await expect(startWorker({ port: await freePort(), cwd: folder })).rejects.toThrow(
          /^wrangler could not start the Worker: \S/,
        );
        expect(workerdBelow(process.pid).filter(alive)).toEqual([]);
      },
    ),
);

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
    const persistDir = join(dist, '.state');
    const worker = await startWorker({ ...options, assetsDir: dist, persistDir });
    await worker.close();
    const body = (bucket: string) =>
      withLocalBucket(persistDir, bucket, async (local) => (await local.get('bodies/aaaa'))?.text());
    expect(await body('treefarm-other')).toBe('body a');
    expect(await body(DEFAULT_BUCKET)).toBeUndefined();
  });
}, 90_000);

describe('the R2 mode is chosen with BODIES=r2, never by editing wrangler.toml', () => {
  const run = { assetsDir: '/staged/assets', bucket: { name: 'treefarm-other', remote: true }, indexId: '0123' };

  test("the shipped wrangler.toml makes a run's config: assets, routes, bucket, index, entry absolute", async () => {
    const config = await r2RunConfig(projectDir, { ...run, workerRoutes: WORKER_ROUTES });
    try {
      const written = JSON.parse(readFileSync(config.path, 'utf8')) as Record<string, unknown>;
      expect(written).toMatchObject({
        name: 'treefarm-data',
        main: join(projectDir, 'out/worker/worker.js'),
        assets: { directory: '/staged/assets', binding: 'ASSETS', run_worker_first: WORKER_ROUTES },
        r2_buckets: [{ binding: 'API_BUCKET', bucket_name: 'treefarm-other', remote: true }],
        vars: { API_INDEX: '0123' },
      });
    } finally {
      config.remove();
    }
  });

  const routes = `run_worker_first = ${JSON.stringify(WORKER_ROUTES)}`;
  const byHand = {
    'the routes': [shipped.replace(/^run_worker_first = true$/m, routes), routes],
    'the bucket binding': [
      `${shipped}\n[[r2_buckets]]\nbinding = "API_BUCKET"\nbucket_name = "treefarm-data-api"\n`,
      'binding = "API_BUCKET"',
    ],
    API_INDEX: [`${shipped}\n[vars]\nAPI_INDEX = "0123"\n`, 'API_INDEX = "0123"'],
  };
  test.each(Object.entries(byHand))(
    'a wrangler.toml given %s by hand is refused, naming the setting',
    (_, [text, line]) =>
      withFiles({ 'wrangler.toml': text ?? '' }, async (folder) => {
        await expect(r2RunConfig(folder, { ...run, workerRoutes: WORKER_ROUTES })).rejects.toThrow(
          `wrangler.toml in ${folder} sets up the R2 mode by hand (${line}): BODIES=r2 adds the R2 mode's routes, ` +
            "bucket and API_INDEX to each run's config itself, so keep wrangler.toml in the assets-only mode, as " +
            'shipped (run_worker_first = true, no API_BUCKET, no API_INDEX)',
        );
      }),
  );
});
