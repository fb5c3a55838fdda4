// `npm run bench:serve`: throughput and p99 latency of the local server (one process), side
// by side in one run with (a) the floor: a bare node:http server that parses the URL, compares
// the token and writes a preloaded buffer with the same headers, (b) nginx serving the same
// bytes (one worker process) when installed, with sendfile and without (which copies each
// body as Node does), and (c) a dynamic Fastify server shaped like the service this project
// replaces, and (d) this server again with a rate limit configured (high enough never to trip)
// and the access log on (written to stdout, here /dev/null), against the same server without
// them (a report: their goal is judged in instructions, `npm run bench:instructions`, since
// req/s on this shared machine cannot resolve it), and with each alone to show which costs
// what, and (e) the same server once more, a control: its paired ratios show how far the
// machine alone moves a pairing in this run. Load comes from wrk -t1 (or autocannon)
// on loopback (or on another machine: bench/lib/load.ts), 32 connections. Each round starts
// every server afresh, in random order.
// The RSS column is the memory of each server's processes together as its measured run ends.
// The main thread column is the CPU a request of the processes' main threads alone (the thread
// that serves, without a log's thread or the GC's helpers); for the limit and log it gives the
// paired ratio req/s would show if that thread alone set it, beside the req/s verdict.
// BENCH_CPU_PROF=<dir> writes a CPU profile of this server's process there.
// BENCH_COMPARE=<dir> adds the server of another checkout (its own src/ and dist/), e.g. main's,
// to the same rounds, without and with the limit and log: a before/after on a shared machine.
// BENCH_ONLY=<role>,<role> loads only these servers (roles as in `Role`), e.g. ours,ours-limited.
import '../src/cli/node-check.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectDir } from '../src/cli/project-dir.ts';
import { listRoute, MANIFEST_FILE, nameRoute } from '../src/contract/paths.ts';
import { searchKey } from '../src/contract/search-key.ts';
import { etagFor } from '../src/edge/negotiation.ts';
import { buildManifestSchema } from '../src/schema/manifest.ts';
import { routeBody, routeBytes } from '../test/support/dist-routes.ts';
import {
  has,
  load,
  loaderLine,
  measure,
  median,
  nodeTarget,
  type Result,
  ROUNDS,
  serverAddress,
  serverOrigin,
  serverPort,
  startChild,
  summary,
  type Target,
  WARM_UP_SECONDS,
  withChildren,
} from './lib/load.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

await commandLine({
  command: 'npm run bench:serve',
  summary:
    'Throughput and p99 latency of the local server beside a bare node:http floor and nginx serving the same ' +
    'bytes. Reads BENCH_COMPARE (another checkout), BENCH_ONLY and BENCH_CPU_PROF.',
  options: {},
  variables: {},
  examples: ['npm run bench:serve'],
  version: () => projectVersion(),
});

const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
const distDir = join(projectDir, 'dist');

/** The identity bytes of each scenario's body as a plain file, for the floor and nginx. */
const bodiesDir = mkdtempSync(join(tmpdir(), 'bench-bodies-'));
process.on('exit', () => rmSync(bodiesDir, { recursive: true, force: true }));
function bodyFile(route: string): string {
  const file = join(bodiesDir, `${route.replaceAll('/', '_')}.json`);
  writeFileSync(file, routeBytes(route));
  return file;
}

const scenarios = [
  {
    name: 'name search',
    query: '/api/trees?search=Oak%20Tree',
    search: 'Oak Tree',
    route: nameRoute('trees', searchKey('Oak Tree')),
  },
  { name: 'full list', query: '/api/trees', search: '', route: listRoute('trees') },
].map((scenario) => ({ ...scenario, file: bodyFile(scenario.route) }));

type Role =
  | 'ours'
  | 'ours-again'
  | 'ours-limit-only'
  | 'ours-log-only'
  | 'ours-limited'
  | 'compare'
  | 'compare-limited'
  | 'floor'
  | 'nginx'
  | 'nginx-copy'
  | 'fastify';
const COMPARE_DIR = process.env.BENCH_COMPARE;
/** BENCH_ONLY=<role>,<role>: load only these servers (e.g. ours,ours-limited), for a quicker A/B. */
const ONLY = process.env.BENCH_ONLY?.split(',');

/** The floor: bench/baseline/node-floor.ts with every scenario's bytes and headers. */
function floorTarget(): Promise<Target<Role>> {
  const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(join(distDir, MANIFEST_FILE), 'utf8')));
  const bodies = Object.fromEntries(
    scenarios.map((scenario) => [
      scenario.search,
      { file: scenario.file, etag: etagFor(routeBody(scenario.route) ?? '', 'identity') },
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
async function nginxTarget(sendfile: boolean): Promise<Target<Role>> {
  const port = await serverPort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  const locations = scenarios.map(
    (scenario, index) => `location = /s${index} { default_type application/json; alias ${scenario.file}; }`,
  );
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''} worker_processes 1; daemon off; ` +
      `pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; sendfile ${sendfile ? 'on' : 'off'}; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; ` +
      `uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen ${serverAddress(port)}; location = / { return 204; } ${locations.join(' ')} } }\n`,
  );
  const child = await startChild('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], {}, port);
  return {
    name: sendfile ? 'nginx, 1 worker (static)' : 'nginx, 1 worker, sendfile off',
    role: sendfile ? 'nginx' : 'nginx-copy',
    pids: () => withChildren(child),
    url: (scenario) => `${serverOrigin(port)}/s${scenarios.findIndex(({ name }) => name === scenario.name)}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A server of the run, started afresh for each round (see the loop below). */
interface TargetSpec {
  role: Role;
  start(): Promise<Target<Role>>;
}

const profile = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [];
const limit = { API_RATE_LIMIT: '999999999/60s' };
const allSpecs: TargetSpec[] = [
  {
    role: 'ours',
    start: () =>
      nodeTarget('this server (npm run serve)', 'ours', 'src/server/serve.ts', { ACCESS_LOG: 'off' }, profile),
  },
  {
    // The control: the same server as `ours`, paired with it like the others. Its spread of
    // ratios is the resolution of the run (what the machine alone moves a pairing by).
    role: 'ours-again',
    start: () => nodeTarget('this server again (control)', 'ours-again', 'src/server/serve.ts', { ACCESS_LOG: 'off' }),
  },
  {
    role: 'ours-limit-only',
    start: () =>
      nodeTarget('this server, rate limit only', 'ours-limit-only', 'src/server/serve.ts', {
        ...limit,
        ACCESS_LOG: 'off',
      }),
  },
  {
    role: 'ours-log-only',
    start: () =>
      nodeTarget('this server, access log only', 'ours-log-only', 'src/server/serve.ts', { ACCESS_LOG: 'on' }),
  },
  {
    role: 'ours-limited',
    start: () =>
      nodeTarget('this server, rate limit + access log', 'ours-limited', 'src/server/serve.ts', {
        ...limit,
        ACCESS_LOG: 'on',
      }),
  },
  ...(COMPARE_DIR
    ? [
        {
          role: 'compare' as const,
          start: () =>
            nodeTarget(`npm run serve of ${COMPARE_DIR}`, 'compare', join(COMPARE_DIR, 'src/server/serve.ts'), {
              DIST_DIR: join(COMPARE_DIR, 'dist'),
            }),
        },
        {
          role: 'compare-limited' as const,
          start: () =>
            nodeTarget(
              `npm run serve of ${COMPARE_DIR}, rate limit + access log`,
              'compare-limited',
              join(COMPARE_DIR, 'src/server/serve.ts'),
              { DIST_DIR: join(COMPARE_DIR, 'dist'), ...limit, ACCESS_LOG: 'on' },
            ),
        },
      ]
    : []),
  { role: 'floor' as const, start: floorTarget },
  ...(has('nginx')
    ? [
        { role: 'nginx' as const, start: () => nginxTarget(true) },
        { role: 'nginx-copy' as const, start: () => nginxTarget(false) },
      ]
    : []),
  {
    role: 'fastify' as const,
    start: () => nodeTarget('Fastify, dynamic', 'fastify', 'bench/baseline/fastify-server.ts'),
  },
];
const specs = allSpecs.filter(({ role }) => ONLY === undefined || ONLY.includes(role));

/** A copy of `items` in random order. */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

// Every round starts each server afresh, in a new random order, and measures it on every
// scenario: one process's luck (its memory layout, what its JIT chose) moved a pairing by
// 5 % when the same processes served every round, and a fixed order gave each position its
// own share of the machine's drift. A pairing's verdict is the median of its rounds' ratios,
// each round's two figures measured minutes apart at most.
const results = new Map<string, Result[]>();
const names = new Map<Role, string>();
const resultsOf = (role: Role, scenario: string) => results.get(`${role}\0${scenario}`) ?? [];
let running: Target<Role> | undefined;
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const spec of shuffled(specs)) {
      running = await spec.start();
      names.set(spec.role, running.name);
      for (const scenario of scenarios) {
        load(running.url(scenario), WARM_UP_SECONDS); // the JIT and the connection pool
        results.set(`${spec.role}\0${scenario.name}`, [
          ...resultsOf(spec.role, scenario.name),
          measure(running, running.url(scenario)),
        ]);
      }
      await running.stop();
      running = undefined;
    }
  }
} finally {
  await running?.stop();
}

console.log(`${loaderLine()} Each round starts every server afresh, in random order.\n`);
const lines = [
  '| scenario | server | req/s | p99 ms | errors | CPU µs/req | main thread µs/req | RSS MiB | ' +
    'vs floor | vs nginx | vs Fastify |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const verdicts: string[] = [];
for (const scenario of scenarios) {
  const summaries = new Map(specs.map(({ role }) => [role, summary(resultsOf(role, scenario.name))]));
  const ratio = (result: Result, role: Role) => {
    const other = summaries.get(role);
    return other ? result.requestsPerSecond / other.requestsPerSecond : undefined;
  };
  /**
   * The median of the rounds' ratios of `role` to `base`, and the lowest and highest of them:
   * of req/s, or of `base`'s main-thread CPU a request to `role`'s (what req/s would be if that
   * thread alone set it).
   */
  const paired = (role: Role, base: Role, of: 'req/s' | 'main thread' = 'req/s') => {
    const bases = resultsOf(base, scenario.name);
    const ratios = resultsOf(role, scenario.name).map((result, round) =>
      of === 'req/s'
        ? result.requestsPerSecond / (bases[round]?.requestsPerSecond ?? Number.NaN)
        : (bases[round]?.mainThreadMicros ?? Number.NaN) / result.mainThreadMicros,
    );
    return ratios.length === 0
      ? undefined
      : { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
  };
  const shown = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)}x`);
  for (const { role } of specs) {
    const result = summaries.get(role);
    if (!result) continue;
    const isOurs = role === 'ours';
    // Each server with a limit and log against the same checkout's server without them.
    const vsOurs = role.startsWith('ours-')
      ? paired(role, 'ours')
      : role === 'compare-limited'
        ? paired(role, 'compare')
        : undefined;
    lines.push(
      `| ${scenario.name} | ${names.get(role)} | ${Math.round(result.requestsPerSecond)} | ` +
        `${result.p99Ms.toFixed(2)} | ${result.errors} | ${result.cpuMicros.toFixed(1)} | ` +
        `${result.mainThreadMicros.toFixed(1)} | ` +
        `${Math.round(result.rssMiB)} | ` +
        `${isOurs ? shown(ratio(result, 'floor')) : ''} | ${isOurs ? shown(ratio(result, 'nginx')) : ''} | ` +
        `${isOurs ? shown(ratio(result, 'fastify')) : ''} |` +
        (vsOurs
          ? ` ${shown(vsOurs.median)} of the server without them (rounds ${shown(vsOurs.low)} to ${shown(vsOurs.high)})`
          : ''),
    );
  }
  const ours = summaries.get('ours');
  if (ours) verdicts.push(...goalVerdicts(scenario.name, ours, ratio(ours, 'floor'), ratio(ours, 'nginx')));
  const limited = paired('ours-limited', 'ours');
  if (limited)
    verdicts.push(
      `       ${scenario.name}: rate limit + access log / without (a report; judged by bench:instructions): ` +
        `${limited.median.toFixed(3)}x (median of ${ROUNDS} paired rounds, ` +
        `${limited.low.toFixed(2)}x to ${limited.high.toFixed(2)}x)`,
    );
  const serving = paired('ours-limited', 'ours', 'main thread');
  if (serving)
    verdicts.push(
      `       ${scenario.name}: the serving thread's CPU a request, without / with rate limit + access log: ` +
        `${serving.median.toFixed(2)}x (rounds ${serving.low.toFixed(2)}x to ${serving.high.toFixed(2)}x), ` +
        'the req/s ratio if that thread alone set it',
    );
  const control = paired('ours-again', 'ours');
  if (control)
    verdicts.push(
      `       ${scenario.name}: the same server again (control): ${control.median.toFixed(2)}x ` +
        `(rounds ${control.low.toFixed(2)}x to ${control.high.toFixed(2)}x), what the machine alone moves a pairing by`,
    );
  const compared = ours && ratio(ours, 'compare');
  if (compared) verdicts.push(`       ${scenario.name}: this server / ${COMPARE_DIR}: ${compared.toFixed(2)}x req/s`);
}
console.log(lines.join('\n'));
console.log(`\n${verdicts.join('\n')}`);

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
