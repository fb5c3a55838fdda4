// `npm run bench:build-api`: the API build (loadContent + emitApi) over synthetic content of 1k,
// 10k and 100k trees, against the raw ceiling of writing the same files with a bare loop.
// Each size is measured `--runs` times (3 by default), each in a fresh child process so its
// peak RSS is its own and its build starts cold; the table shows the median of each figure.
// Options: `-- --sizes 1000,10000` to pick sizes; `-- --dir /dev/shm` to work in another
// folder than the system temp folder; `-- --cpu-prof` to profile each child (the profiles'
// folder is printed; open them in Chrome DevTools).
import '../src/cli/node-check.ts';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitApi } from '../src/build/emit.ts';
import { assetFilesBelow } from '../src/build/deploy-limits.ts';
import { loadContent } from '../src/build/content.ts';
import { writeSyntheticContent } from './lib/synthetic-content.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

interface Measurement {
  trees: number;
  records: number;
  files: number;
  /** loadContent + emitApi, in ms. */
  buildMs: number;
  /** emitApi alone, content already loaded. */
  emitMs: number;
  /** A bare writeFileSync loop over the same paths and sizes. */
  rawMs: number;
  /** Peak RSS of the process after the whole build, in bytes. */
  buildPeakRss: number;
}

const GOALS = { emitOverRaw: 3, buildSeconds: 60, buildRssBytes: 1.5 * 1024 ** 3, scaling10kTo100k: 12 };

const { values } = await commandLine({
  command: 'npm run bench:build-api',
  summary:
    'The API build (loadContent and emitApi) over synthetic content of many trees, beside the raw ceiling of ' +
    'writing the same files; each size in a fresh child process, the median of --runs.',
  options: {
    sizes: {
      type: 'string',
      default: '1000,10000,100000',
      value: '<n,n>',
      description: 'trees per synthetic content, comma-separated',
    },
    runs: { type: 'string', default: '3', value: '<n>', wholeNumber: true, description: 'runs of each size' },
    dir: { type: 'string', default: tmpdir(), value: '<dir>', description: 'where the synthetic content is made' },
    'cpu-prof': { type: 'boolean', default: false, description: 'write a CPU profile of each run' },
    'measure-content': {
      type: 'string',
      value: '<dir>',
      description: '(a child run) measure the content in this folder',
    },
  },
  variables: {},
  examples: ['npm run bench:build-api -- --sizes 1000,10000 --runs 3'],
  version: () => projectVersion(),
});

const profileDir = join(values.dir, 'treefarm-bench-profiles');

function main(): void {
  const sizes = values.sizes.split(',').map(Number);
  console.log(
    `Build benchmark: ${sizes.join(', ')} trees in ${values.dir}, ` +
      `Node ${process.version}, ${new Date().toISOString()}\n`,
  );
  const results: Measurement[] = [];
  for (const trees of sizes) {
    const workDir = mkdtempSync(join(values.dir, `treefarm-bench-build-${trees}-`));
    try {
      const contentDir = writeSyntheticContent(workDir, trees);
      const runs = Array.from({ length: Number(values.runs) }, () => measureInChild(contentDir));
      results.push(median(runs));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
    console.error(`measured ${trees} trees ${values.runs} times`);
  }
  printTable(results);
  printGoals(results);
  if (values['cpu-prof']) console.log(`\nCPU profiles: ${profileDir}`);
}

/** The median of each figure over several runs. */
function median(runs: Measurement[]): Measurement {
  const middle = (pick: (run: Measurement) => number) =>
    runs.map(pick).sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? Number.NaN;
  const [first] = runs;
  if (!first) throw new Error('no runs');
  return {
    ...first,
    buildMs: middle((r) => r.buildMs),
    emitMs: middle((r) => r.emitMs),
    rawMs: middle((r) => r.rawMs),
    buildPeakRss: middle((r) => r.buildPeakRss),
  };
}

/** Runs this script on one content folder in a fresh Node process and reads its measurement. */
function measureInChild(contentDir: string): Measurement {
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawnSync(
    process.execPath,
    [...profile, fileURLToPath(import.meta.url), '--dir', values.dir, '--measure-content', contentDir],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1024 * 1024,
    },
  );
  if (child.status !== 0) throw new Error(`the measuring process failed (exit ${child.status})`);
  return JSON.parse(child.stdout) as Measurement;
}

/** In the child: the three timings over one content folder; every output goes to a fresh temp folder. */
async function measure(contentDir: string): Promise<Measurement> {
  const outRoot = mkdtempSync(join(values.dir, 'treefarm-bench-out-'));
  try {
    settleDisk();
    let started = performance.now();
    const content = loadContent(contentDir);
    const { manifest } = await emitApi(content, join(outRoot, 'build'));
    const buildMs = performance.now() - started;
    const buildPeakRss = process.resourceUsage().maxRSS * 1024;

    settleDisk();
    started = performance.now();
    await emitApi(content, join(outRoot, 'emit'));
    const emitMs = performance.now() - started;

    settleDisk();
    const written = assetFilesBelow(join(outRoot, 'build'));
    const rawMs = writeRaw(written, join(outRoot, 'raw'));
    const records = Object.values(manifest.counts).reduce((sum, count) => sum + count, 0);
    return {
      trees: manifest.counts.trees,
      records,
      files: written.length,
      buildMs,
      emitMs,
      rawMs,
      buildPeakRss,
    };
  } finally {
    rmSync(outRoot, { recursive: true, force: true });
  }
}

/** Writes dirty pages out before a timed phase, so it does not pay for the writes of the one before. */
function settleDisk(): void {
  spawnSync('sync');
}

/** The raw ceiling: the same files of the same sizes as the build wrote, written by a bare loop. */
function writeRaw(written: readonly { path: string; size: number }[], outDir: string): number {
  const sizes = written.map(({ path, size }) => [path, size] as const);
  const filler = Buffer.alloc(
    sizes.reduce((largest, [, size]) => Math.max(largest, size), 0),
    'x',
  );
  const started = performance.now();
  const madeDirs = new Set<string>();
  for (const [path, size] of sizes) {
    const target = join(outDir, path);
    const dir = dirname(target);
    if (!madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      madeDirs.add(dir);
    }
    writeFileSync(target, filler.subarray(0, size));
  }
  return performance.now() - started;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString('en-US');
const mebibytes = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;

function printTable(results: Measurement[]): void {
  console.log(
    '| trees | records | files | whole build | records/s | emission | files/s | ' +
      'raw ceiling | raw files/s | emission / raw | peak RSS |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.trees.toLocaleString('en-US')} | ${r.records.toLocaleString('en-US')} | ` +
        `${r.files.toLocaleString('en-US')} | ${seconds(r.buildMs)} s | ${perSecond(r.records, r.buildMs)} | ` +
        `${seconds(r.emitMs)} s | ${perSecond(r.files, r.emitMs)} | ${seconds(r.rawMs)} s | ` +
        `${perSecond(r.files, r.rawMs)} | ${(r.emitMs / r.rawMs).toFixed(2)}x | ${mebibytes(r.buildPeakRss)} |`,
    );
  }
}

function printGoals(results: Measurement[]): void {
  const at = (trees: number) => results.find((r) => r.trees === trees);
  const big = at(100_000);
  const medium = at(10_000);
  const goal = (met: boolean, text: string) => console.log(`${met ? 'PASS' : 'MISS'}  ${text}`);
  console.log('');
  if (!big) {
    console.log('Goals are checked at 100k trees (and 10k for scaling): not measured.');
    return;
  }
  goal(
    big.emitMs <= GOALS.emitOverRaw * big.rawMs,
    `100k emission within ${GOALS.emitOverRaw}x the raw ceiling: ${(big.emitMs / big.rawMs).toFixed(2)}x`,
  );
  goal(
    big.buildMs < GOALS.buildSeconds * 1000,
    `100k whole build under ${GOALS.buildSeconds} s: ${seconds(big.buildMs)} s`,
  );
  goal(
    big.buildPeakRss < GOALS.buildRssBytes,
    `100k whole build under 1.5 GiB peak RSS: ${mebibytes(big.buildPeakRss)}`,
  );
  if (medium) {
    const ratio = big.buildMs / medium.buildMs;
    goal(ratio <= GOALS.scaling10kTo100k, `100k costs at most ${GOALS.scaling10kTo100k}x 10k: ${ratio.toFixed(2)}x`);
  }
}

// Last, so every constant above is initialised.
if (values['measure-content']) {
  console.log(JSON.stringify(await measure(values['measure-content'])));
} else {
  main();
}
