// `npm run worker` and `npm run deploy -- --local` stay on this machine and inside the project
// and temporary folders (src/cloudflare/wrangler-local.ts). Each runs with a HOME and a TMPDIR
// of its own and, as root, in a network namespace with loopback alone (`unshare -n`), so that
// any lookup fails and shows: it starts, prints no lookup, and leaves HOME empty and TMPDIR as it
// found it (Node's compile cache aside). Elsewhere the namespace is left out and HOME still counts.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { exitOf, outputUntil } from '../support/child-output.ts';
import { freePort } from '../support/runtimes.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const temporary = temporaryFolders();

/** Whether this process can give a child a network of its own: root, with util-linux's unshare. */
const canIsolate = process.getuid?.() === 0 && spawnSync('unshare', ['--version']).status === 0;

/** What a failed or attempted lookup prints: wrangler's `cf` fetch, or any DNS failure. */
const LOOKUP = /ENOTFOUND|EAI_AGAIN|getaddrinfo|Unable to fetch|workers\.cloudflare\.com/;

/** How the runs are cut off: no network at all as root, else only a fresh HOME. */
const cutOff = canIsolate ? 'no network' : 'a fresh HOME';

/** Every entry below a folder, as paths relative to it. */
const entriesBelow = (folder: string) => readdirSync(folder, { recursive: true }).map(String).sort();

/**
 * A CLI of src/cloudflare with these variables, a fresh HOME and TMPDIR, no XDG_CONFIG_HOME,
 * and (as root) no network but loopback.
 */
function isolatedCli(script: string, args: string[], env: Record<string, string>) {
  const home = temporary('local-only-home-');
  const tmp = temporary('local-only-tmp-');
  // As a user's shell runs them: vitest's NODE_ENV=test would turn miniflare's `cf` fetch off.
  const { XDG_CONFIG_HOME: _config, NODE_ENV: _test, ...inherited } = process.env;
  const command = [process.execPath, script, ...args];
  const [file, ...rest] = canIsolate
    ? ['unshare', '-n', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...command]
    : command;
  const child: ChildProcess = spawn(file ?? '', rest, {
    cwd: projectDir,
    env: { ...inherited, HOME: home, TMPDIR: tmp, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const left = () => ({
    home: entriesBelow(home),
    tmp: readdirSync(tmp).filter((name) => name !== 'node-compile-cache'),
  });
  return { child, output: () => output, left };
}

test(`BODIES=r2 npm run worker starts with ${cutOff}, looks nothing up and writes nothing outside`, async () => {
  const run = isolatedCli('src/cloudflare/worker-dev.ts', [], {
    PORT: String(await freePort()),
    API_TOKENS: 't',
    BODIES: 'r2',
  });
  try {
    await outputUntil(run.child, /Worker \(workerd, local\): /);
  } finally {
    run.child.kill('SIGTERM');
  }
  await exitOf(run.child);
  expect(run.output()).not.toMatch(LOOKUP);
  expect(run.left()).toEqual({ home: [], tmp: [] });
}, 180_000);

test(`BODIES=r2 npm run deploy -- --local --dry-run reads the bucket with ${cutOff}, looking nothing up`, async () => {
  const dist = temporary('local-only-dist-');
  const files = { 'manifest.json': '{}', 'index.html': '<h1>wiki</h1>', 'api/bodies/aaaa': 'body a' };
  for (const [path, text] of Object.entries({
    ...files,
    'api/index/current/root.json': '{"version":"v1","shards":1,"nearGroup":3}',
    'api/index/current/0.json': '{"trees/list":"aaaa"}',
  })) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  const run = isolatedCli('src/cloudflare/deploy-cli.ts', ['--local', '--dry-run'], { BODIES: 'r2', DIST_DIR: dist });
  expect(await exitOf(run.child)).toEqual({ code: 0, signal: null });
  expect(run.output()).toMatch(/^Dry run: \d+ objects the local R2 bucket /m);
  expect(run.output()).not.toMatch(LOOKUP);
  expect(run.left()).toEqual({ home: [], tmp: [] });
}, 180_000);
