// A real nginx (Debian's `nginx`) in front of a server under test: a child process on loopback,
// not a daemon, with its configuration, pid file, logs and temporary files in a temp folder of
// its own. Missing nginx: the suites skip locally and fail in CI (REQUIRE_NGINX=1).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './runtimes.ts';
import { temporaryFolder } from './temporary-folders.ts';

/** Debian's nginx; NGINX_PATH points elsewhere (or nowhere, to try the skip). */
export const NGINX_PATH = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/** True when the tests behind nginx must be skipped (no nginx and not required). */
export function skipNginxTests(): boolean {
  if (existsSync(NGINX_PATH)) return false;
  if (process.env.REQUIRE_NGINX === '1')
    throw new Error(`REQUIRE_NGINX=1 but ${NGINX_PATH} is missing: install it with apt-get install nginx`);
  console.warn(
    `Skipping the tests behind a reverse proxy: ${NGINX_PATH} is missing (apt-get install nginx). ` +
      'In CI, REQUIRE_NGINX=1 makes this a failure.',
  );
  return true;
}

export interface RunningNginx {
  /** Origin, no trailing slash. */
  url: string;
  port: number;
  /** Stops nginx and removes its folder. */
  close(): Promise<void>;
}

/** How many times to try a connection before nginx counts as not started, one try every 50 ms at most. */
const CONNECT_TRIES = 600;

/** Whether something accepts a connection on loopback at `port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once the child exits, at once if it has. */
const exitOf = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/**
 * Starts nginx with `server`, a `server { … }` block (and any `map` before it) whose first
 * `listen` it sets to a free port of loopback, inside an `http` block that keeps every path nginx
 * writes in its own temp folder.
 * Resolves once nginx accepts connections (polling a connect, a bounded number of times).
 */
export async function startNginx(server: string): Promise<RunningNginx> {
  const dir = temporaryFolder('treefarm-nginx-');
  const port = await freePort();
  const config = [
    'daemon off;',
    // One process, which the test starts and stops; as root, no switch to another user either.
    'master_process off;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`),
    // The address is the test's; what follows it (`ssl`) stays.
    server.replace(/^(\s*)listen\s+[^\s;]+([^;]*);/m, `$1listen 127.0.0.1:${port}$2;`),
    '}',
  ].join('\n');
  const configFile = join(dir, 'nginx.conf');
  writeFileSync(configFile, config);
  const child = spawn(NGINX_PATH, ['-p', `${dir}/`, '-c', configFile, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exitOf(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const failed = async (why: string) => {
    const errorLog = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    await close();
    return new Error(`nginx ${why}:\n${output}${errorLog}\nits configuration:\n${config}`);
  };
  for (let tries = 0; tries < CONNECT_TRIES; tries++) {
    if (child.exitCode !== null || child.signalCode !== null) throw await failed('exited before it listened');
    if (await accepts(port)) return { url: `http://127.0.0.1:${port}`, port, close };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw await failed(`did not accept a connection in ${CONNECT_TRIES} tries`);
}
