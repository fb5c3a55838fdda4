// `npm run worker`: the Worker in workerd through `wrangler dev`, locally and offline, in
// front of the existing dist/. Honours PORT (8787), HOST (127.0.0.1), API_TOKENS and
// API_TOKEN_SHA256; with no token configured it makes one up, as the Node server does. With
// API_RATE_LIMIT it runs with Cloudflare's rate limiting binding, which wrangler simulates.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { RATE_LIMIT_VARIABLE, type RateLimit } from '../schema/environment.ts';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { madeUpTokenNotice } from './local-tokens.ts';
import { type ServeSettings, settingsFromEnvironment, workerDevVariables } from './settings.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));
const wranglerBin = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');

export interface WorkerOptions {
  port: number;
  host?: string;
  /** Plaintext tokens (API_TOKENS). */
  tokens?: readonly string[];
  /** Lowercase hex SHA-256 digests of tokens (API_TOKEN_SHA256). */
  tokenSha256?: readonly string[];
  /** The built site to serve instead of wrangler.toml's assets directory (dist/). */
  assetsDir?: string;
  /** Print wrangler's output (the CLI does; tests don't). */
  echo?: boolean;
  /** Another Worker: the folder of its wrangler.toml (the project's by default). */
  cwd?: string;
  /** More variables for the Worker's env. */
  vars?: Record<string, string>;
  /** API_RATE_LIMIT: the Worker runs with Cloudflare's rate limiting binding, which wrangler simulates. */
  rateLimit?: RateLimit | undefined;
}

/** The binding's name in the Worker (src/worker/worker.ts reads it so). */
const RATE_LIMIT_BINDING = 'API_RATE_LIMITER';

/**
 * A wrangler config for this run: the project's wrangler.toml with its paths made absolute and
 * the rate limiting binding added, in a temporary folder removed when the run closes.
 */
function rateLimitedConfig(configDir: string, { requests, seconds }: RateLimit): { path: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'treefarm-worker-'));
  const absolute = (key: string) => (text: string) =>
    text.replace(
      new RegExp(`^${key} = "(.*)"$`, 'm'),
      (_line, path: string) => `${key} = ${JSON.stringify(resolvePath(configDir, path))}`,
    );
  const project = readFileSync(join(configDir, 'wrangler.toml'), 'utf8');
  const config = `${absolute('directory')(absolute('main')(project))}
[[ratelimits]]
name = "${RATE_LIMIT_BINDING}"
namespace_id = "1001"
simple = { limit = ${requests}, period = ${seconds} }
`;
  const path = join(folder, 'wrangler.toml');
  writeFileSync(path, config);
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

export interface RunningWorker {
  url: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/**
 * The Worker's variables as a file for wrangler's --env-file (dotenv): on its command line
 * they would show in every local user's `ps`. The file is the current user's alone (0600 in
 * a 0700 folder); the returned function removes it. Values are single-quoted, `$` escaped
 * (wrangler expands variables); one it cannot quote is refused, naming the variable.
 */
export function writeEnvFile(vars: Record<string, string>): { path: string; remove(): void } {
  const lines = Object.entries(vars).map(([name, value]) => {
    if (/['\\\r\n]/.test(value))
      throw new Error(`${name} holds a quote, backslash or line break, which cannot be passed to wrangler`);
    return `${name}='${value.replaceAll('$', '\\$')}'\n`;
  });
  const folder = mkdtempSync(join(tmpdir(), 'treefarm-worker-'));
  const path = join(folder, 'worker.env');
  writeFileSync(path, lines.join(''), { mode: 0o600 });
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** How long wrangler may take to stop after SIGTERM before its group is killed. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Closes a process started as a group leader: SIGTERM to the group, SIGKILL to what is left
 * once the leader exits (or after the grace period); this process's exit kills the group too.
 */
function groupCloser(child: ChildProcess): () => Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group has ended already.
    }
  };
  const killOnExit = () => signalGroup('SIGKILL');
  process.once('exit', killOnExit);
  return () =>
    new Promise<void>((resolve) => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) {
        signalGroup('SIGKILL');
        return resolve();
      }
      const stubborn = setTimeout(() => signalGroup('SIGKILL'), CLOSE_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(stubborn);
        // What the CLI left behind (workerd) goes with it.
        signalGroup('SIGKILL');
        resolve();
      });
      signalGroup('SIGTERM');
    });
}

/** The Worker's env: the extra variables and the token lists. */
function workerVars(options: WorkerOptions): Record<string, string> {
  const vars: Record<string, string> = { ...options.vars };
  if (options.tokens?.length) vars.API_TOKENS = options.tokens.join(',');
  if (options.tokenSha256?.length) vars.API_TOKEN_SHA256 = options.tokenSha256.join(',');
  if (options.rateLimit) vars[RATE_LIMIT_VARIABLE] = `${options.rateLimit.requests}/${options.rateLimit.seconds}s`;
  return vars;
}

export function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const host = options.host ?? '127.0.0.1';
  const args = [
    wranglerBin,
    'dev',
    '--port',
    String(options.port),
    '--ip',
    host,
    '--log-level',
    'warn',
    '--show-interactive-dev-session=false',
  ];
  // wrangler merges --assets into the [assets] of wrangler.toml: binding and routing stay as configured.
  if (options.assetsDir) args.push('--assets', options.assetsDir);
  let envFile: ReturnType<typeof writeEnvFile>;
  try {
    envFile = writeEnvFile(workerVars(options));
  } catch (error) {
    return Promise.reject(error);
  }
  // Given an env file, wrangler reads neither .dev.vars nor .env: the Worker sees these alone.
  args.push('--env-file', envFile.path);
  const limited = options.rateLimit && rateLimitedConfig(options.cwd ?? projectDir, options.rateLimit);
  if (limited) args.push('--config', limited.path);
  // wrangler runs as a process group of its own (its CLI, esbuild, workerd): closing ends the
  // whole group, and so does this process's exit, so no workerd outlives the run that started it.
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? projectDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: process.env.CI ?? '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const url = `http://${host}:${options.port}`;
  const closeGroup = groupCloser(child);
  // wrangler reads the file once at start; removed when it stops, or when this process exits.
  process.once('exit', envFile.remove);
  const close = () =>
    closeGroup().finally(() => {
      process.off('exit', envFile.remove);
      envFile.remove();
      limited?.remove();
    });
  return whenReady(child, url, close, options.echo);
}

/** Resolves once the Worker answers on `url`; rejects with wrangler's output if it exits or takes over 60 s. */
function whenReady(child: ChildProcess, url: string, close: () => Promise<void>, echo = false) {
  return new Promise<RunningWorker>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      if (echo) process.stdout.write(chunk);
      output += chunk.toString();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      // Stopped before it was ready (or closed after): what it left behind goes too.
      void close();
      reject(new Error(`wrangler dev exited with ${code}:\n${output}`));
    });
    // Ready when the Worker answers; wrangler's own "Ready" line comes before workerd is.
    const started = Date.now();
    const poll = async () => {
      try {
        await fetch(`${url}/api/trees`, { method: 'OPTIONS' });
        resolve({ url, process: child, close });
      } catch {
        if (Date.now() - started > 60_000) {
          await close();
          reject(new Error(`wrangler dev did not answer on ${url} within 60 s:\n${output}`));
        } else setTimeout(poll, 250);
      }
    };
    void poll();
  });
}

if (import.meta.main) {
  let settings: ServeSettings;
  try {
    settings = settingsFromEnvironment(process.env, workerDevVariables);
  } catch (error) {
    console.error(`Cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
  const { port, host, tokens, tokenSha256, madeUpToken, rateLimit } = settings;
  // Signals are handled from the start: dying by a signal's default action would skip the exit
  // handler that ends wrangler's process group. Stopping before the Worker is up is an exit,
  // which ends the group; after, a close, then an exit.
  let worker: RunningWorker | undefined;
  const stop = () => void (worker?.close() ?? Promise.resolve()).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  worker = await startWorker({ port, host, tokens, tokenSha256, rateLimit, echo: true });
  console.log(`Worker (workerd, local): ${worker.url}/`);
  if (madeUpToken) console.log(madeUpTokenNotice(worker.url, madeUpToken));
}
