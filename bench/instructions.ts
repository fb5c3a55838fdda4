// `npm run bench:instructions`: the instructions one serving process executes per request of
// the name search, without a rate limit or access log, with each, and with both, counted by
// valgrind's callgrind (Debian's `valgrind`). Unlike req/s on this shared two-core machine,
// the count does not drift with the load beside it, so a change to the serving path can be
// weighed on its own. It is a count, not a time: kernel work is not in it, a cache miss costs no
// more than a hit, and valgrind makes each read of the clock cost about a thousand instructions
// (a real one costs about 50 ns).
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
// The goal: with the rate limit and access log together, at most 1.10x the instructions a
// request of the server without them on the serving thread, and 1.25x over all threads (the
// log's own included): the team's measure of their cost.
import '../src/schema/node-check.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { projectDir } from '../src/build/site.ts';
import { freePort } from '../test/support/runtimes.ts';
import { has, startChild, TOKEN } from './lib/load.ts';
import { projectVersion } from '../src/contract/project-version.ts';
import { commandLine } from '../src/schema/command-line.ts';

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
const PATH = '/api/trees?search=Oak%20Tree';
const LIMIT = { API_RATE_LIMIT: '999999999/60s' };
/** The most the rate limit and access log together may cost, against neither: the serving thread... */
const MAX_SERVING_RATIO = 1.1;
/** ...and all threads together (the goal). */
const MAX_ALL_THREADS_RATIO = 1.25;

/** The four configurations, each counted for every checkout; the first is the plain request. */
const configurations: { name: string; env: Record<string, string> }[] = [
  { name: 'no limit, no log', env: { ACCESS_LOG: 'off' } },
  { name: 'rate limit', env: { ...LIMIT, ACCESS_LOG: 'off' } },
  { name: 'access log', env: { ACCESS_LOG: 'on' } },
  { name: 'rate limit + access log', env: { ...LIMIT, ACCESS_LOG: 'on' } },
];

/** This checkout, and the one BENCH_COMPARE names: each runs its own src/ over its own dist/. */
const checkouts = [projectDir, ...(process.env.BENCH_COMPARE ? [resolve(process.env.BENCH_COMPARE)] : [])];

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

/** Instructions per measured request: all threads, and the serving (main) thread alone. */
async function count(
  checkout: string,
  env: Record<string, string>,
  outDir: string,
): Promise<{ all: number; serving: number }> {
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
      join(checkout, 'bench/lib/serve-one.ts'),
    ],
    { PORT: String(port), API_TOKENS: TOKEN, DIST_DIR: join(checkout, 'dist'), ...env },
    port,
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

if (!has('valgrind') || !has('callgrind_control')) {
  console.error('bench:instructions needs valgrind (apt-get install valgrind).');
  process.exit(1);
}
const outDir = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
try {
  console.log(
    `callgrind, ${REQUESTS} requests of ${PATH} after ${WARM_UP}, ${ROUNDS} rounds, ${new Date().toISOString()}\n`,
  );
  type Counts = { all: number[]; serving: number[] };
  /** counts[checkout][configuration]: one figure a round. */
  const counts: Counts[][] = checkouts.map(() => configurations.map(() => ({ all: [], serving: [] })));
  for (let round = 0; round < ROUNDS; round++)
    for (const [at, checkout] of checkouts.entries())
      for (const [index, configuration] of configurations.entries()) {
        const counted = await count(checkout, configuration.env, outDir);
        counts[at]?.[index]?.all.push(counted.all);
        counts[at]?.[index]?.serving.push(counted.serving);
      }
  for (const [at, checkout] of checkouts.entries()) report(checkout, counts[at] ?? []);

  function report(checkout: string, ofCheckout: Counts[]): void {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const medians = ofCheckout.map(({ all, serving }) => ({ all: median(all), serving: median(serving) }));
    const shown = (value: number) => Math.round(value).toLocaleString('en');
    console.log(`${checkout}:\n`);
    console.log(
      '| server | instructions a request | serving thread | added on the serving thread | ' +
        'each round: all threads / serving |',
    );
    console.log('|---|---:|---:|---:|---|');
    const [base] = medians;
    const both = medians.at(-1);
    for (const [index, configuration] of configurations.entries()) {
      const counted = medians[index];
      if (!counted || !base) continue;
      const added = index === 0 ? '' : `+${shown(counted.serving - base.serving)}`;
      const { all = [], serving = [] } = ofCheckout[index] ?? {};
      const rounds = all.map((each, round) => `${shown(each)} / ${shown(serving[round] ?? Number.NaN)}`).join(', ');
      console.log(
        `| ${configuration.name} | ${shown(counted.all)} | ${shown(counted.serving)} | ${added} | ${rounds} |`,
      );
    }
    if (base !== undefined && both !== undefined) {
      const verdict = (name: string, ratio: number, most: number) =>
        `${ratio <= most ? 'MET   ' : 'MISSED'} rate limit + access log, ${name}: ` +
        `${ratio.toFixed(3)}x (at most ${most}x)`;
      console.log(`\n${verdict('serving thread', both.serving / base.serving, MAX_SERVING_RATIO)}`);
      console.log(`${verdict('all threads', both.all / base.all, MAX_ALL_THREADS_RATIO)}\n`);
    }
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
