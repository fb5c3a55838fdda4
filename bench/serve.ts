// `npm run bench:serve`: throughput and p99 latency of the local server, side by side in one
// run with (a) a dynamic Fastify server shaped like the service it replaces and (b) a static
// ceiling: nginx serving the same bytes when installed, else a bare node:http server. Load
// comes from wrk (or autocannon) in a second process on loopback, 32 connections.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectDir } from '../src/build/site.ts';
import { namePath, listPath } from '../src/contract/paths.ts';
import { searchKey } from '../src/contract/search-key.ts';
import { freePort } from '../test/support/runtimes.ts';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKEN = 'bench-token';
const distDir = join(projectDir, 'dist');

const scenarios = [
  { name: 'name search', query: '/api/trees?search=Oak%20Tree', file: namePath('trees', searchKey('Oak Tree')) },
  { name: 'full list', query: '/api/trees', file: listPath('trees') },
];

interface Target {
  name: string;
  role: 'ours' | 'baseline' | 'ceiling';
  /** Processes whose CPU time counts as the server's. */
  pids(): number[];
  /** The URL that answers a scenario on this target. */
  url(scenario: (typeof scenarios)[number]): string;
  stop(): void;
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
): Promise<Target> {
  const port = await freePort();
  const env = { PORT: String(port), API_TOKENS: TOKEN, CONTENT_DIR: join(projectDir, 'content'), ...extraEnv };
  const child = await startChild(process.execPath, [script], env, port);
  return {
    name,
    role,
    pids: () => withChildren(child),
    url: (scenario) => `http://127.0.0.1:${port}${scenario.query}`,
    stop: () => child.kill(),
  };
}

async function nginxTarget(): Promise<Target> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  const locations = scenarios.map(
    (scenario, index) =>
      `location = /s${index} { default_type application/json; alias ${join(distDir, scenario.file)}; }`,
  );
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''} worker_processes auto; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen 127.0.0.1:${port}; location = / { return 204; } ${locations.join(' ')} } }\n`,
  );
  const child = await startChild('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], {}, port);
  return {
    name: 'nginx (static ceiling)',
    role: 'ceiling',
    pids: () => withChildren(child),
    url: (scenario) => `http://127.0.0.1:${port}/s${scenarios.indexOf(scenario)}`,
    stop: () => {
      child.kill();
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
  const result = load(url);
  const requests = result.requestsPerSecond * SECONDS;
  return { ...result, cpuMicros: ((cpuSeconds(pids) - before) * 1e6) / requests };
}

function load(url: string): Omit<Result, 'cpuMicros'> {
  const auth = `Authorization: Bearer ${TOKEN}`;
  if (has('wrk')) {
    const run = spawnSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', '-H', auth, url], {
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
    [autocannon, '-c', String(CONNECTIONS), '-d', String(SECONDS), '-j', '-H', auth, url],
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
  targets.push(await nodeTarget('this server (npm start)', 'ours', 'src/server/serve.ts'));
  targets.push(await nodeTarget('this server, WORKERS=2', 'ours', 'src/server/serve.ts', { WORKERS: '2' }));
  targets.push(await nodeTarget('Fastify, dynamic (baseline)', 'baseline', 'bench/baseline/fastify-server.ts'));
  if (has('nginx')) targets.push(await nginxTarget());
  else
    for (const scenario of scenarios)
      targets.push(
        await nodeTarget(`node:http preloaded buffer: ${scenario.name}`, 'ceiling', 'bench/baseline/node-static.ts', {
          BODY_FILE: join(distDir, scenario.file),
        }),
      );

  const loader = has('wrk') ? `wrk -t2 -c${CONNECTIONS} -d${SECONDS}s` : `autocannon -c ${CONNECTIONS} -d ${SECONDS}`;
  console.log(`Load: ${loader}, ${ROUNDS} rounds interleaved, median shown. ${new Date().toISOString()}\n`);
  const lines = [
    '| scenario | server | req/s | p99 ms | errors | CPU µs/req | vs baseline | vs static |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  let allMet = true;
  for (const scenario of scenarios) {
    const rounds = new Map<Target, Result[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, so a noisy moment on this shared machine hits every server alike.
      for (const target of targets) {
        if (target.name.startsWith('node:http') && !target.name.endsWith(scenario.name)) continue;
        load(target.url(scenario)); // warm-up round trip for the JIT and the connection pool
        rounds.get(target)?.push(measure(target, target.url(scenario)));
      }
    }
    const summary = (target: Target | undefined): Result | undefined => {
      const results = target ? rounds.get(target) : undefined;
      if (!results?.length) return undefined;
      return {
        cpuMicros: median(results.map((result) => result.cpuMicros)),
        requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
        p99Ms: median(results.map((result) => result.p99Ms)),
        errors: results.reduce((sum, result) => sum + result.errors, 0),
      };
    };
    const baseline = summary(targets.find((target) => target.role === 'baseline'));
    const ceiling = summary(
      targets.find((target) => target.role === 'ceiling' && (rounds.get(target)?.length ?? 0) > 0),
    );
    const ours: Result[] = [];
    for (const target of targets) {
      const result = summary(target);
      if (!result) continue;
      const isOurs = target.role === 'ours';
      if (isOurs) ours.push(result);
      const vsBaseline = isOurs && baseline ? result.requestsPerSecond / baseline.requestsPerSecond : undefined;
      const vsCeiling = isOurs && ceiling ? result.requestsPerSecond / ceiling.requestsPerSecond : undefined;
      lines.push(
        `| ${scenario.name} | ${target.name} | ${Math.round(result.requestsPerSecond)} | ${result.p99Ms.toFixed(2)} | ${result.errors} | ${result.cpuMicros.toFixed(1)} | ${vsBaseline ? `${vsBaseline.toFixed(2)}x` : ''} | ${vsCeiling ? `${vsCeiling.toFixed(2)}x` : ''} |`,
      );
    }
    if (baseline && ceiling) {
      // Met when either configuration of this server meets every goal.
      allMet &&= ours.some(
        (result) =>
          result.requestsPerSecond >= 2.5 * baseline.requestsPerSecond &&
          result.requestsPerSecond >= 0.5 * ceiling.requestsPerSecond &&
          result.p99Ms <= 5 &&
          result.errors === 0,
      );
    }
  }
  console.log(lines.join('\n'));
  console.log(
    `\nGoals (each scenario: >= 2.5x baseline, >= 0.5x static, p99 <= 5 ms, no errors): ${allMet ? 'MET' : 'MISSED'}`,
  );
} finally {
  for (const target of targets) target.stop();
}
