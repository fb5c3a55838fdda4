// `npm run worker`: the Worker in workerd through `wrangler dev`, locally and offline, in
// front of the existing dist/. Honours PORT (8787), HOST (127.0.0.1), API_TOKENS and
// API_TOKEN_SHA256; with no token configured it makes one up, as the Node server does.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
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
}

export interface RunningWorker {
  url: string;
  process: ChildProcess;
  close(): Promise<void>;
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
  if (options.tokens?.length) args.push('--var', `API_TOKENS:${options.tokens.join(',')}`);
  if (options.tokenSha256?.length) args.push('--var', `API_TOKEN_SHA256:${options.tokenSha256.join(',')}`);
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push('--var', `${name}:${value}`);
  // wrangler runs as a process group of its own (its CLI, esbuild, workerd): closing ends the
  // whole group, and so does this process's exit, so no workerd outlives the run that started it.
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? projectDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: process.env.CI ?? '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const url = `http://${host}:${options.port}`;
  const close = groupCloser(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      if (options.echo) process.stdout.write(chunk);
      output += chunk.toString();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`wrangler dev exited with ${code}:\n${output}`)));
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
  const { port, host, tokens, tokenSha256, madeUpToken } = settings;
  // Signals are handled from the start: dying by a signal's default action would skip the exit
  // handler that ends wrangler's process group. Stopping before the Worker is up is an exit,
  // which ends the group; after, a close, then an exit.
  let worker: RunningWorker | undefined;
  const stop = () => void (worker?.close() ?? Promise.resolve()).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  worker = await startWorker({ port, host, tokens, tokenSha256, echo: true });
  console.log(`Worker (workerd, local): ${worker.url}/`);
  if (madeUpToken) console.log(madeUpTokenNotice(worker.url, madeUpToken));
}
