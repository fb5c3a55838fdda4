// `npm run bench:instructions`: the instructions one serving process executes per request of
// the name search, without a rate limit or access log, with each, and with both, counted by
// valgrind's callgrind (Debian's `valgrind`). It drifts far less than req/s on this shared
// two-core machine, so a change to the serving path can be weighed on its own; but load changes
// how requests batch on the connections and the log's thread's wake-ups (at load 3-4 single
// rounds moved by up to 12 %): judge budgets on a quiet machine. It is a count, not a time:
// kernel work is not in it, a cache miss costs no more than a hit, and valgrind makes each read
// of the clock cost about a thousand instructions (a real one costs about 50 ns).
// Each server gets BENCH_WARM_UP requests (60000) on connections opened and closed WARM_UP_PARTS
// times, its counters are zeroed, then it gets BENCH_REQUESTS (4000) on 8 kept-alive connections.
// BENCH_ROUNDS (3) rounds of the four servers, interleaved; each figure is the median of its
// rounds. BENCH_COMPARE=<dir> adds the four servers of another checkout (its own src/ and dist/,
// e.g. main's) to the same rounds: a before and after in one run.
// The count is of a server past its start, at what each request costs from then on. What the
// warm-up is past, each of which moved a server's count while it was counted:
// - V8's middle tier: after 4000 requests, part of the request path still ran in it (up to 10 %);
// - node:http's closing path: the first closed connections made V8 compile it again, so the
//   measured requests open new connections only after several rounds of closing them;
// - the log's thread's first full collection, which its heap's first old-generation limit brings at
//   about 24,000 lines (`--trace-gc`, natively as under valgrind; none after it up to 64,000): up to
//   10,000 instructions a request of all threads when it fell in the 4000 counted;
// - the access log ring's first wrap, at about 43,700 records of this request (4 MiB of 96-byte
//   records): its writer's first record at the ring's start deoptimizes it (a comparison V8 had
//   not yet seen made), and V8 compiles it and a few node:http functions again (`--trace-opt
//   --trace-deopt`): about 2,500 instructions a request of all threads when it fell in the count.
// The servers' young generation is held at 16 MiB, the size a server's reaches under load:
// V8 shrinks it when few bytes are allocated a millisecond, which under valgrind (about 50 times
// slower) it did in some processes and not others, so a server scavenged its heap from 5 to 41
// times in the same 4000 requests, up to 5,000 instructions a request apart.
// The goals (issue 55, 57) are budgets of instructions a request on the serving thread that
// leave out node:http's own work: the rate limit at most 4,500, the access log at most 2,500 on
// the serving thread and 8,000 a line on its own thread, metrics at most 1,500. node:http's work
// for the rate limit's two headers (writeHead checks each header and writes it) is measured by a
// control: node:http alone (bench/lib/headers-control.ts) answering with the server's own answer
// headers and body, without and with those two headers; the difference is taken off the limit's
// cost. The access log and metrics add no header: their cost against the plain server is theirs.
// The log's thread's cost a line: what the server with the log adds on threads other than the
// serving one.
import '../src/cli/node-check.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { projectDir } from '../src/cli/project-dir.ts';
import { freePort } from '../test/support/runtimes.ts';
import { has, startChild, TOKEN } from './lib/load.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

await commandLine({
  command: 'npm run bench:instructions',
  summary:
    'The instructions one serving process executes per request of the name search, without and with the rate ' +
    "limit and the access log, counted by valgrind's callgrind. Reads BENCH_WARM_UP, BENCH_REQUESTS, " +
    'BENCH_ROUNDS and BENCH_COMPARE (another checkout, for a before and after in one run).',
  options: {},
  variables: {},
  examples: ['BENCH_COMPARE=../main npm run bench:instructions'],
  version: () => projectVersion(),
});

const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 60_000);
const WARM_UP_PARTS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONNECTIONS = 8;
const PARALLEL = process.env.BENCH_PARALLEL === '1';
const PATH = '/api/trees?search=Oak%20Tree';
const LIMIT = { API_RATE_LIMIT: '999999999/60s' };
const METRICS = { METRICS: '127.0.0.1:9' };
/** The budgets, in instructions a request on the serving thread (the log's thread's: a line). */
const BUDGET = { rateLimit: 4500, accessLog: 2500, logThread: 8000, metrics: 1500 };

interface Configuration {
  name: string;
  env: Record<string, string>;
  /** Run with this checkout only: what another checkout has no code for, and the control. */
  here?: 'server' | 'control';
  /** The control's headers: the plain answer's, or the limited one's. */
  limited?: boolean;
}

/** The configurations, each counted for every checkout (but `here`'s); the first is the plain request. */
const configurations: Configuration[] = [
  { name: 'no limit, no log', env: { ACCESS_LOG: 'off' } },
  { name: 'rate limit', env: { ...LIMIT, ACCESS_LOG: 'off' } },
  { name: 'access log', env: { ACCESS_LOG: 'on' } },
  { name: 'metrics', env: { ...METRICS, ACCESS_LOG: 'off' }, here: 'server' },
  { name: 'access log + metrics', env: { ...METRICS, ACCESS_LOG: 'on' }, here: 'server' },
  { name: "control: node:http, the answer's headers", env: {}, here: 'control', limited: false },
  { name: 'control: node:http, and the two RateLimit headers', env: {}, here: 'control', limited: true },
];
const byName = (name: string) => configurations.findIndex((configuration) => configuration.name === name);

/** This checkout, and the one BENCH_COMPARE names: each runs its own src/ over its own dist/. */
const checkouts = [projectDir, ...(process.env.BENCH_COMPARE ? [resolve(process.env.BENCH_COMPARE)] : [])];
const runsIn = (at: number) => (configuration: Configuration) => at === 0 || configuration.here === undefined;

/** `count` GET requests on `CONNECTIONS` kept-alive connections, each sent when one is answered. */
function requests(port: number, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let sent = 0;
  let answered = 0;
  return new Promise<void>((done, failed) => {
    const next = () => {
      if (sent === count) return;
      sent++;
      const options = { port, host: '127.0.0.1', path: PATH, agent, headers: { Authorization: `Bearer ${TOKEN}` } };
      get(options, (response) => {
        if (response.statusCode !== 200) failed(new Error(`${PATH} answered ${response.statusCode}`));
        response.resume();
        response.on('end', () => (++answered === count ? done() : next()));
      }).on('error', failed);
    };
    for (let connection = 0; connection < CONNECTIONS; connection++) next();
  }).finally(() => agent.destroy());
}

/** The Ir total of a callgrind output file. */
const instructionsIn = (file: string) => Number(/^summary:\s+(\d+)/m.exec(readFileSync(file, 'utf8'))?.[1]);

/** What a server runs: a checkout's serving process, or the control with its headers. */
interface Server {
  script: string;
  env: Record<string, string>;
}

/** Instructions per measured request: all threads, and the serving (main) thread alone. */
async function count(server: Server, outDir: string): Promise<{ all: number; serving: number }> {
  const port = await freePort();
  const child = await startChild(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(outDir, 'out.%p')}`,
      // Valgrind's own messages, kept out of the table.
      `--log-file=${join(outDir, 'valgrind.%p.log')}`,
      process.execPath,
      '--min-semi-space-size=16',
      '--max-semi-space-size=16',
      server.script,
    ],
    { PORT: String(port), API_TOKENS: TOKEN, ...server.env },
    port,
    // Up to an hour: valgrind's start of a server on a machine loaded many times over.
    72_000,
  );
  try {
    for (let part = 0; part < WARM_UP_PARTS; part++) await requests(port, WARM_UP / WARM_UP_PARTS);
    spawnSync('callgrind_control', ['--zero', String(child.pid)]);
    await requests(port, REQUESTS);
    spawnSync('callgrind_control', ['--dump', String(child.pid)]);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  // The dump after the measured requests: out.<pid>.1-<thread>, thread 01 the main thread.
  const dumps = readdirSync(outDir).filter((file) => file.startsWith(`out.${child.pid}.1-`));
  const total = (files: string[]) => files.reduce((sum, file) => sum + instructionsIn(join(outDir, file)), 0);
  return {
    all: total(dumps) / REQUESTS,
    serving: total(dumps.filter((file) => file === `out.${child.pid}.1-01`)) / REQUESTS,
  };
}

/** Headers node:http writes itself, left out of the control's list. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The answer this checkout's server gives PATH under the limit (run natively, once): its header
 * list without and with the two RateLimit headers, and its body, for the control.
 */
async function answerShape(outDir: string): Promise<{ plain: string[]; limited: string[]; bodyFile: string }> {
  const port = await freePort();
  const env = {
    PORT: String(port),
    API_TOKENS: TOKEN,
    DIST_DIR: join(projectDir, 'dist'),
    ...LIMIT,
    ACCESS_LOG: 'off',
  };
  const child = await startChild(process.execPath, [join(projectDir, 'bench/lib/serve-one.ts')], env, port);
  try {
    const response = await new Promise<IncomingMessage>((done, failed) =>
      get({ port, host: '127.0.0.1', path: PATH, headers: { Authorization: `Bearer ${TOKEN}` } }, done).on(
        'error',
        failed,
      ),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const bodyFile = join(outDir, 'control-body');
    writeFileSync(bodyFile, Buffer.concat(chunks));
    const limited: string[] = [];
    const plain: string[] = [];
    const raw = response.rawHeaders;
    for (let index = 0; index < raw.length; index += 2) {
      const [name = '', value = ''] = [raw[index], raw[index + 1]];
      if (OWN_HEADERS.has(name.toLowerCase())) continue;
      limited.push(name, value);
      if (!name.toLowerCase().startsWith('ratelimit')) plain.push(name, value);
    }
    if (limited.length !== plain.length + 4) throw new Error(`${PATH} under a limit has no two RateLimit headers`);
    return { plain, limited, bodyFile };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

if (!has('valgrind') || !has('callgrind_control')) {
  console.error('bench:instructions needs valgrind (apt-get install valgrind).');
  process.exit(1);
}
type Counts = { all: number[]; serving: number[] };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const shown = (value: number) => Math.round(value).toLocaleString('en');
const outDir = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
try {
  console.log(
    `callgrind, ${REQUESTS} requests of ${PATH} after ${WARM_UP}, ${ROUNDS} rounds, ${new Date().toISOString()}\n`,
  );
  const shape = await answerShape(outDir);
  const serverOf = (checkout: string, configuration: Configuration): Server =>
    configuration.here === 'control'
      ? {
          script: join(projectDir, 'bench/lib/headers-control.ts'),
          env: {
            CONTROL_HEADERS: JSON.stringify(configuration.limited ? shape.limited : shape.plain),
            CONTROL_BODY: shape.bodyFile,
          },
        }
      : {
          script: join(checkout, 'bench/lib/serve-one.ts'),
          env: { DIST_DIR: join(checkout, 'dist'), ...configuration.env },
        };
  /** counts[checkout][configuration]: one figure a round. */
  const counts: Counts[][] = checkouts.map(() => configurations.map(() => ({ all: [], serving: [] })));
  for (let round = 0; round < ROUNDS; round++) {
    const runs = checkouts.flatMap((checkout, at) =>
      configurations.flatMap((configuration, index) =>
        runsIn(at)(configuration) ? [{ server: serverOf(checkout, configuration), at, index }] : [],
      ),
    );
    const record = ({ at, index }: { at: number; index: number }, counted: { all: number; serving: number }) => {
      counts[at]?.[index]?.all.push(counted.all);
      counts[at]?.[index]?.serving.push(counted.serving);
    };
    // The servers of a round may run side by side (BENCH_PARALLEL=1) where there is no time to run
    // them one after another: quicker, and noisier, as load moves the counts.
    if (PARALLEL)
      for (const [run, counted] of (await Promise.all(runs.map(({ server }) => count(server, outDir)))).entries())
        record(runs[run] ?? { at: 0, index: 0 }, counted);
    else for (const run of runs) record(run, await count(run.server, outDir));
  }
  for (const [at, checkout] of checkouts.entries()) report(checkout, at, counts[at] ?? []);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

function report(checkout: string, at: number, ofCheckout: Counts[]): void {
  const medians = ofCheckout.map(({ all, serving }) => ({ all: median(all), serving: median(serving) }));
  console.log(`${checkout}:\n`);
  console.log(
    '| server | instructions a request | serving thread | added on the serving thread | ' +
      'each round: all threads / serving |',
  );
  console.log('|---|---:|---:|---:|---|');
  const [base] = medians;
  for (const [index, configuration] of configurations.entries()) {
    const counted = medians[index];
    if (!counted || !base || !runsIn(at)(configuration)) continue;
    const added = index === 0 || configuration.here === 'control' ? '' : `+${shown(counted.serving - base.serving)}`;
    const { all = [], serving = [] } = ofCheckout[index] ?? {};
    const rounds = all.map((each, round) => `${shown(each)} / ${shown(serving[round] ?? Number.NaN)}`).join(', ');
    console.log(`| ${configuration.name} | ${shown(counted.all)} | ${shown(counted.serving)} | ${added} | ${rounds} |`);
  }
  if (at === 0 && base) judge(medians);
  console.log('');
}

/** Each feature's cost against its budget, node:http's own work left out (this checkout). */
function judge(medians: { all: number; serving: number }[]): void {
  const of = (name: string) => medians[byName(name)] ?? { all: Number.NaN, serving: Number.NaN };
  const plain = of('no limit, no log');
  const headersWork =
    of('control: node:http, and the two RateLimit headers').serving -
    of("control: node:http, the answer's headers").serving;
  const others = (counted: { all: number; serving: number }) => counted.all - counted.serving;
  const verdicts: [string, number, number][] = [
    [
      `rate limit, serving thread (its +${shown(of('rate limit').serving - plain.serving)} less node:http's ` +
        `${shown(headersWork)} for its two headers)`,
      of('rate limit').serving - plain.serving - headersWork,
      BUDGET.rateLimit,
    ],
    ['access log, serving thread', of('access log').serving - plain.serving, BUDGET.accessLog],
    ['access log, its thread a line', others(of('access log')) - others(plain), BUDGET.logThread],
    ['metrics, serving thread', of('metrics').serving - plain.serving, BUDGET.metrics],
    [
      'metrics beside the access log, serving thread',
      of('access log + metrics').serving - of('access log').serving,
      BUDGET.metrics,
    ],
  ];
  console.log('');
  for (const [name, cost, most] of verdicts)
    console.log(`${cost <= most ? 'MET   ' : 'MISSED'} ${name}: ${shown(cost)} (at most ${shown(most)})`);
}
