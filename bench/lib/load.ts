// Load generation shared by the serving benchmarks (bench:serve, bench:suggest): servers
// started as child processes, wrk -t1 (or autocannon) against them on loopback, and the
// servers' CPU time per request, which holds steady on a busy machine where req/s does not.
// On loopback the load generator shares the machine's cores with the server. BENCH_LOAD_HOST
// (an ssh destination, e.g. bench@loadgen) runs wrk on that machine instead, over ssh, against
// servers listening on BENCH_HOST (an address of this machine that one reaches): the servers
// then have this machine's cores to themselves.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { freePort } from '../../test/support/runtimes.ts';

export const CONNECTIONS = 32;
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Enough rounds that a median of paired ratios stands when one round is disturbed. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The warm-up before each measured run: the JIT and the connection pool. */
export const WARM_UP_SECONDS = 2;
export const TOKEN = 'bench-token';

/** The ssh destination wrk runs on, or undefined: wrk (or autocannon) here, on loopback. */
const LOAD_HOST = process.env.BENCH_LOAD_HOST || undefined;
/** The address the servers listen on and the load generator calls. */
const SERVER_HOST = process.env.BENCH_HOST || '127.0.0.1';
/** `<host>:<port>` of a server of the run (an IPv6 address in brackets), as a URL and nginx's listen write it. */
export const serverAddress = (port: number) =>
  `${SERVER_HOST.includes(':') ? `[${SERVER_HOST}]` : SERVER_HOST}:${port}`;
/** `http://<host>:<port>` of a server of the run. */
export const serverOrigin = (port: number) => `http://${serverAddress(port)}`;
/** A port free on the address the servers listen on, for a server of the run. */
export const serverPort = () => freePort(SERVER_HOST);

/** What a benchmark asks of a server: a path with its query. */
export interface Scenario {
  name: string;
  query: string;
}

export interface Target<Role extends string = string> {
  name: string;
  role: Role;
  /** Processes whose CPU time counts as the server's. */
  pids(): number[];
  /** The URL that answers a scenario on this target. */
  url(scenario: Scenario): string;
  stop(): Promise<unknown>;
}

export interface Result {
  /** Server CPU time per request in microseconds: robust against a busy machine. */
  cpuMicros: number;
  /**
   * The same, of the processes' main threads alone: the thread that serves, without its
   * helpers (a log's thread, the GC's). Under load it is busy all the time, so req/s is one
   * over its time a request wherever the helpers' time goes.
   */
  mainThreadMicros: number;
  /** Resident memory of the server's processes together, in MiB, as the measured run ends. */
  rssMiB: number;
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
}

export function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/**
 * Starts a server and waits until it answers on `port` (a large build takes a while to load;
 * one under valgrind on a loaded machine, minutes: `attempts` of about 50 ms).
 */
export async function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  attempts = 2400,
): Promise<ChildProcess> {
  const child = spawn(command, args, {
    cwd: projectDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      await fetch(`${serverOrigin(port)}/`, { method: 'HEAD' });
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill();
  throw new Error(`${command} ${args.join(' ')} did not start on port ${port}`);
}

/** A process and its children (nginx's workers, the server's processes under WORKERS). */
export function withChildren(child: ChildProcess): number[] {
  const children = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  return [child.pid ?? 0, ...children];
}

/** A Node server of this project (or a baseline) on a free port, with the bench token. */
export async function nodeTarget<Role extends string>(
  name: string,
  role: Role,
  script: string,
  extraEnv: Record<string, string> = {},
  nodeOptions: string[] = [],
): Promise<Target<Role>> {
  const port = await serverPort();
  const env = {
    HOST: SERVER_HOST,
    PORT: String(port),
    API_TOKENS: TOKEN,
    CONTENT_DIR: join(projectDir, 'content'),
    ...extraEnv,
  };
  const child = await startChild(process.execPath, [...nodeOptions, script], env, port);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    name,
    role,
    pids: () => withChildren(child),
    url: (scenario) => `${serverOrigin(port)}${scenario.query}`,
    // SIGTERM: the server drains and exits, so a CPU profile is written.
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

function parseWrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) return Number.NaN;
  return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[match[2] as 'us' | 'ms' | 's'];
}

/** CPU seconds (user + system) used so far by these processes, or by their main threads alone. */
function cpuSeconds(pids: number[], mainThreads = false): number {
  const ticks = pids.reduce((sum, pid) => {
    try {
      const stat = mainThreads ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
      const fields = readFileSync(stat, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return sum + Number(fields[11]) + Number(fields[12]);
    } catch {
      return sum;
    }
  }, 0);
  return ticks / 100;
}

/** Resident memory of these processes together, in MiB (VmRSS). */
function residentMiB(pids: number[]): number {
  const kib = pids.reduce((sum, pid) => {
    try {
      return sum + Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return sum;
    }
  }, 0);
  return kib / 1024;
}

/** One measured run against `url`, with the server's CPU time per request and its memory after. */
export function measure(target: Target, url: string): Result {
  const pids = target.pids();
  const before = cpuSeconds(pids);
  const mainBefore = cpuSeconds(pids, true);
  const result = load(url, SECONDS);
  const requests = result.requestsPerSecond * SECONDS;
  return {
    ...result,
    cpuMicros: ((cpuSeconds(pids) - before) * 1e6) / requests,
    mainThreadMicros: ((cpuSeconds(pids, true) - mainBefore) * 1e6) / requests,
    rssMiB: residentMiB(pids),
  };
}

/** ssh's options: fail at once where it would ask for a password or a host key, or wait long to connect. */
const SSH = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10'];
/** An argument as the remote shell ssh hands its command line to reads it back. */
const shellQuoted = (argument: string) => `'${argument.replaceAll("'", `'\\''`)}'`;

/** Stops the run before any server starts if the load machine's settings cannot work. */
function checkLoadHost(loadHost: string): void {
  if (/^(127\.|::1$|localhost$)/.test(SERVER_HOST)) {
    throw new Error(
      `BENCH_LOAD_HOST=${loadHost} runs the load on another machine, so BENCH_HOST must be an address of ` +
        `this machine that ${loadHost} reaches; it is ${SERVER_HOST}.`,
    );
  }
  const check = spawnSync('ssh', [...SSH, loadHost, 'command -v wrk'], { encoding: 'utf8' });
  // ssh's own failures exit 255; the remote command's exit otherwise.
  if (check.status === 255) {
    throw new Error(`BENCH_LOAD_HOST=${loadHost}: ssh could not connect and log in by key: ${check.stderr.trim()}`);
  }
  if (check.status !== 0) throw new Error(`BENCH_LOAD_HOST=${loadHost}: wrk is not installed there.`);
}
if (LOAD_HOST !== undefined) checkLoadHost(LOAD_HOST);
/** wrk on BENCH_LOAD_HOST, else wrk here when installed, else autocannon (which costs the server more CPU). */
const WITH_WRK = LOAD_HOST !== undefined || has('wrk');

/** wrk with these arguments, here or on BENCH_LOAD_HOST; throws when it could not load. */
function wrk(args: string[]): string {
  const run =
    LOAD_HOST === undefined
      ? spawnSync('wrk', args, { encoding: 'utf8' })
      : spawnSync('ssh', [...SSH, LOAD_HOST, ['wrk', ...args].map(shellQuoted).join(' ')], { encoding: 'utf8' });
  if (run.status !== 0) {
    throw new Error(`wrk ${args.join(' ')} failed (exit ${run.status}): ${run.stderr.trim() || run.stdout.trim()}`);
  }
  return run.stdout;
}

/** `seconds` of load on `url`, 32 connections, one load thread (on loopback, the server has the other core). */
export function load(url: string, seconds: number): Omit<Result, 'cpuMicros' | 'mainThreadMicros' | 'rssMiB'> {
  const auth = `Authorization: Bearer ${TOKEN}`;
  if (WITH_WRK) {
    const out = wrk(['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-H', auth, url]);
    const errors =
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) +
      (/Socket errors: (.*)/.exec(out)?.[1]?.match(/\d+/g) ?? []).reduce((sum, n) => sum + Number(n), 0);
    return {
      requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
      p99Ms: parseWrkMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? ''),
      errors,
    };
  }
  const autocannon = join(projectDir, 'node_modules/autocannon/autocannon.js');
  const run = spawnSync(
    process.execPath,
    [autocannon, '-c', String(CONNECTIONS), '-d', String(seconds), '-j', '-H', auth, url],
    { encoding: 'utf8' },
  );
  const report = JSON.parse(run.stdout) as {
    requests: { average: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    requestsPerSecond: report.requests.average,
    p99Ms: report.latency.p99,
    errors: report.non2xx + report.errors,
  };
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The median run of several (errors summed); undefined for none. */
export function summary(results: Result[]): Result | undefined {
  if (results.length === 0) return undefined;
  return {
    cpuMicros: median(results.map((result) => result.cpuMicros)),
    mainThreadMicros: median(results.map((result) => result.mainThreadMicros)),
    rssMiB: median(results.map((result) => result.rssMiB)),
    requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
    p99Ms: median(results.map((result) => result.p99Ms)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
  };
}

/** The line of the run: the load command, the rounds and the time. */
export const loaderLine = () =>
  `Load: ${WITH_WRK ? `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s` : `autocannon -c ${CONNECTIONS} -d ${SECONDS}`}` +
  `${LOAD_HOST === undefined ? '' : ` on ${LOAD_HOST} (over ssh) against servers on ${SERVER_HOST}`}, ` +
  `${ROUNDS} rounds interleaved, median shown. ${new Date().toISOString()}`;
