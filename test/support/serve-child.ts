// Runs the serve.ts CLI (`npm run serve`) in a child process, as an operator would: signals,
// exit code, output and memory are the server's own.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const serveScript = fileURLToPath(new URL('../../src/server/serve.ts', import.meta.url));

export interface ServeOptions {
  /** DIST_DIR; absent: the project's dist/. */
  distDir?: string;
  /** API_TOKENS. */
  tokens?: readonly string[];
  /** API_TOKEN_SHA256. */
  tokenSha256?: readonly string[];
  /** WORKERS: how many serving processes; absent: one. */
  processes?: number;
  /** API_RATE_LIMIT; absent: none. */
  rateLimit?: string;
  /** ACCESS_LOG; absent: the default (on). */
  accessLog?: 'on' | 'off';
  /** TRUST_PROXY; absent: off. */
  trustProxy?: string;
  /** TRUST_PROXY_HEADER; absent: the default (X-Forwarded-For). */
  trustProxyHeader?: string;
  /** DISCORD_PUBLIC_KEY (hex); absent: the Discord app is off. */
  discordPublicKey?: string;
  /** METRICS; absent: off. */
  metrics?: string;
  /** PORT; absent: any free port. */
  port?: number;
}

export interface ServeChild {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Exit code (null when killed by a signal) once it has exited and all it printed has been read. */
  exited: Promise<number | null>;
}

export interface RunningServeChild extends ServeChild {
  /** Origin, no trailing slash. */
  url: string;
  /** Sends `signal` and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnServe(options: ServeOptions = {}): ServeChild {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(options.port ?? 0),
    HOST: '127.0.0.1',
    API_TOKENS: '',
    API_TOKEN_SHA256: '',
    DIST_DIR: '',
    WORKERS: '',
    API_RATE_LIMIT: options.rateLimit ?? '',
    ACCESS_LOG: options.accessLog ?? '',
    TRUST_PROXY: options.trustProxy ?? '',
    TRUST_PROXY_HEADER: options.trustProxyHeader ?? '',
    DISCORD_PUBLIC_KEY: options.discordPublicKey ?? '',
    METRICS: options.metrics ?? '',
  };
  if (options.distDir) env.DIST_DIR = options.distDir;
  if (options.tokens) env.API_TOKENS = options.tokens.join(',');
  if (options.tokenSha256) env.API_TOKEN_SHA256 = options.tokenSha256.join(',');
  if (options.processes) env.WORKERS = String(options.processes);
  const child = spawn(process.execPath, [serveScript], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // 'close', not 'exit': only then has everything the process wrote been read (its last log
  // lines can still be in the pipe at 'exit').
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Starts serve.ts and resolves once it prints its URL; rejects with its output if it exits first. */
export function startServe(options: ServeOptions = {}): Promise<RunningServeChild> {
  const served = spawnServe(options);
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill(signal);
    return served.exited;
  };
  return new Promise((resolve, reject) => {
    const onData = () => {
      const url = /API: +(http:\/\/[^/\s]+)\/api\//.exec(served.output())?.[1];
      if (!url) return;
      served.child.stdout?.off('data', onData);
      resolve({ ...served, url, stop });
    };
    served.child.stdout?.on('data', onData);
    void served.exited.then((code) =>
      reject(new Error(`serve.ts exited with ${code} before it was ready:\n${served.output()}`)),
    );
  });
}

/** VmRSS of a running process, in bytes (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kilobytes) * 1024;
}

/**
 * Resolves once `condition` holds, polling it; with `withinMs`, also once that time is up, so
 * the test's own assertion (not the test timeout) tells what did not happen.
 */
export async function until(condition: () => boolean, withinMs = Number.POSITIVE_INFINITY): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The pids of the supervisor's serving processes (serve.ts forks them, WORKERS=1 too). */
export function servingProcesses(supervisor: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(supervisor)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** How many files, sockets and pipes a process holds open now (Linux). */
export function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}
