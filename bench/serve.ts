// `npm run bench:serve`: throughput and p99 latency of the local server (one process), side
// by side in one run with (a) the floor: a bare node:http server that parses the URL, compares
// the token and writes a preloaded buffer with the same headers, (b) nginx serving the same
// bytes (one worker process) when installed, with sendfile and without (which copies each
// body as Node does), and (c) a dynamic Fastify server shaped like the service this project
// replaces. Load comes from wrk -t1 (or autocannon) on loopback, 32 connections.
// BENCH_CPU_PROF=<dir> writes a CPU profile of this server's process there.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectDir } from '../src/build/site.ts';
import { namePath, listPath, MANIFEST_FILE } from '../src/contract/paths.ts';
import { searchKey } from '../src/contract/search-key.ts';
import { etagFor } from '../src/edge/negotiation.ts';
import { buildManifestSchema } from '../src/schema/manifest.ts';
import { freePort } from '../test/support/runtimes.ts';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKEN = 'bench-token';

const WARM_UP_SECONDS = 2;
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
const distDir = join(projectDir, 'dist');

const scenarios = [
  {
    name: 'name search',
    query: '/api/trees?search=Oak%20Tree',
    search: 'Oak Tree',
    file: namePath('trees', searchKey('Oak Tree')),
  },
  { name: 'full list', query: '/api/trees', search: '', file: listPath('trees') },
];

interface Target {
  name: string;
  role: 'ours' | 'floor' | 'nginx' | 'nginx-copy' | 'fastify';
  /** Processes whose CPU time counts as the server's. */
  pids(): number[];
  /** The URL that answers a scenario on this target. */
  url(scenario: (typeof scenarios)[number]): string;
  stop(): Promise<unknown>;
}

interface Result {
  /** Server CPU time per request in microseconds: robust against a busy machine. */
  cpuMicros: number;
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
}

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

async function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  port: number,
): Promise<ChildProcess> {
  const child = spawn(command, args, {
    cwd: projectDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill();
  throw new Error(`${command} ${args.join(' ')} did not start on port ${port}`);
}

/** A process and its children (nginx's workers, the server's processes under WORKERS). */
function withChildren(child: ChildProcess): number[] {
  const children = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  return [child.pid ?? 0, ...children];
}

async function nodeTarget(
  name: string,
  role: Target['role'],
  script: string,
  extraEnv: Record<string, string> = {},
  nodeOptions: string[] = [],
): Promise<Target> {
  const port = await freePort();
  const env = { PORT: String(port), API_TOKENS: TOKEN, CONTENT_DIR: join(projectDir, 'content'), ...extraEnv };
  const child = await startChild(process.execPath, [...nodeOptions, script], env, port);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    name,
    role,
    pids: () => withChildren(child),
    url: (scenario) => `http://127.0.0.1:${port}${scenario.query}`,
    // SIGTERM: the server drains and exits, so a CPU profile is written.
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The floor: bench/baseline/node-floor.ts with every scenario's bytes and headers. */
function floorTarget(): Promise<Target> {
  const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(join(distDir, MANIFEST_FILE), 'utf8')));
  const bodies = Object.fromEntries(
    scenarios.map((scenario) => [
      scenario.search,
      { file: join(distDir, scenario.file), etag: etagFor(manifest.files[scenario.file]?.sha256 ?? '', 'identity') },
    ]),
  );
  return nodeTarget('bare node:http (floor)', 'floor', 'bench/baseline/node-floor.ts', {
    BODIES: JSON.stringify(bodies),
    DATA_VERSION: manifest.version,
  });
}

/**
 * nginx on the same bytes. With `sendfile` (its usual setting) the kernel sends the file's
 * pages without copying them; without it nginx copies each body into the socket as any Node
 * server must, which shows what the copy costs.
 */
async function nginxTarget(sendfile: boolean): Promise<Target> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  const locations = scenarios.map(
    (scenario, index) =>
      `location = /s${index} { default_type application/json; alias ${join(distDir, scenario.file)}; }`,
  );
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''} worker_processes 1; daemon off; ` +
      `pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; sendfile ${sendfile ? 'on' : 'off'}; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; ` +
      `uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen 127.0.0.1:${port}; location = / { return 204; } ${locations.join(' ')} } }\n`,
  );
  const child = await startChild('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], {}, port);
  return {
    name: sendfile ? 'nginx, 1 worker (static)' : 'nginx, 1 worker, sendfile off',
    role: sendfile ? 'nginx' : 'nginx-copy',
    pids: () => withChildren(child),
    url: (scenario) => `http://127.0.0.1:${port}/s${scenarios.indexOf(scenario)}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function parseWrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) return Number.NaN;
  return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[match[2] as 'us' | 'ms' | 's'];
}

/** CPU seconds (user + system) used so far by these processes. */
function cpuSeconds(pids: number[]): number {
  const ticks = pids.reduce((sum, pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return sum + Number(fields[11]) + Number(fields[12]);
    } catch {
      return sum;
    }
  }, 0);
  return ticks / 100;
}

function measure(target: Target, url: string): Result {
  const pids = target.pids();
  const before = cpuSeconds(pids);
  const result = load(url, SECONDS);
  const requests = result.requestsPerSecond * SECONDS;
  return { ...result, cpuMicros: ((cpuSeconds(pids) - before) * 1e6) / requests };
}

function load(url: string, seconds: number): Omit<Result, 'cpuMicros'> {
  const auth = `Authorization: Bearer ${TOKEN}`;
  if (has('wrk')) {
    const run = spawnSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-H', auth, url], {
      encoding: 'utf8',
    });
    const out = run.stdout;
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const targets: Target[] = [];
try {
  const profile = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [];
  targets.push(await nodeTarget('this server (npm run serve)', 'ours', 'src/server/serve.ts', {}, profile));
  targets.push(await floorTarget());
  if (has('nginx')) targets.push(await nginxTarget(true), await nginxTarget(false));
  targets.push(await nodeTarget('Fastify, dynamic', 'fastify', 'bench/baseline/fastify-server.ts'));

  const loader = has('wrk') ? `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s` : `autocannon -c ${CONNECTIONS} -d ${SECONDS}`;
  console.log(`Load: ${loader}, ${ROUNDS} rounds interleaved, median shown. ${new Date().toISOString()}\n`);
  const lines = [
    '| scenario | server | req/s | p99 ms | errors | CPU µs/req | vs floor | vs nginx | vs Fastify |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const verdicts: string[] = [];
  for (const scenario of scenarios) {
    const rounds = new Map<Target, Result[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, so a noisy moment on this shared machine hits every server alike.
      for (const target of targets) {
        load(target.url(scenario), WARM_UP_SECONDS); // the JIT and the connection pool
        rounds.get(target)?.push(measure(target, target.url(scenario)));
      }
    }
    const summaries = new Map(targets.map((target) => [target.role, summary(rounds.get(target) ?? [])]));
    const ratio = (result: Result, role: Target['role']) => {
      const other = summaries.get(role);
      return other ? result.requestsPerSecond / other.requestsPerSecond : undefined;
    };
    const shown = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)}x`);
    for (const target of targets) {
      const result = summaries.get(target.role);
      if (!result) continue;
      const isOurs = target.role === 'ours';
      lines.push(
        `| ${scenario.name} | ${target.name} | ${Math.round(result.requestsPerSecond)} | ` +
          `${result.p99Ms.toFixed(2)} | ${result.errors} | ${result.cpuMicros.toFixed(1)} | ` +
          `${isOurs ? shown(ratio(result, 'floor')) : ''} | ${isOurs ? shown(ratio(result, 'nginx')) : ''} | ` +
          `${isOurs ? shown(ratio(result, 'fastify')) : ''} |`,
      );
    }
    const ours = summaries.get('ours');
    if (ours) verdicts.push(...goalVerdicts(scenario.name, ours, ratio(ours, 'floor'), ratio(ours, 'nginx')));
  }
  console.log(lines.join('\n'));
  console.log(`\n${verdicts.join('\n')}`);
} finally {
  await Promise.all(targets.map((target) => target.stop()));
}

function summary(results: Result[]): Result | undefined {
  if (results.length === 0) return undefined;
  return {
    cpuMicros: median(results.map((result) => result.cpuMicros)),
    requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
    p99Ms: median(results.map((result) => result.p99Ms)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
  };
}

/** One line per goal: >= 0.8x the floor, >= 0.5x nginx, p99 <= 5 ms, no errors. */
function goalVerdicts(scenario: string, ours: Result, vsFloor?: number, vsNginx?: number): string[] {
  const verdict = (met: boolean, goal: string, shown: string) =>
    `${met ? 'MET   ' : 'MISSED'} ${scenario}: ${goal}: ${shown}`;
  return [
    verdict((vsFloor ?? 0) >= 0.8, '>= 0.8x the floor', vsFloor ? `${vsFloor.toFixed(2)}x` : 'no floor'),
    verdict((vsNginx ?? 0) >= 0.5, '>= 0.5x nginx', vsNginx ? `${vsNginx.toFixed(2)}x` : 'no nginx'),
    verdict(ours.p99Ms <= 5, 'p99 <= 5 ms', `${ours.p99Ms.toFixed(2)} ms`),
    verdict(ours.errors === 0, 'no errors', String(ours.errors)),
  ];
}
