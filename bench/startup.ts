// `npm run bench:startup`: how long `npm run serve` takes to be ready, and the memory it holds
// then (the supervisor and its serving process together), for the real build and for
// synthetic builds of many API records; then the Worker's start (bench/lib/worker-startup.ts):
// its startup CPU and script size beside the Worker without its apps, with the legacy module
// registry, and before /mcp at its own compatibility date. A synthetic build is the real
// API build (loadContent + emitApi, so every distinct body with its br and gzip variants) of
// `writeSyntheticContent` trees plus the real other kinds; its time is shown too.
// Options: --sizes real,100000 (trees; "real" is dist/), --runs 3, --work <dir> (keep the
// synthetic builds there and reuse them on the next run; default: a temp folder, removed),
// --worker-runs 15 (the Worker's startup profiles of each build: the median of five put two
// scripts of the same size 1.14x apart on this machine, of fifteen 1.00x), --parts serve,worker.
import '../src/cli/node-check.ts';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitApi } from '../src/build/emit.ts';
import { loadContent } from '../src/build/content.ts';
import { MANIFEST_FILE } from '../src/contract/paths.ts';
import { buildManifestSchema } from '../src/schema/manifest.ts';
import { servingProcesses, startServe } from '../test/support/serve-child.ts';
import { distDir as realDistDir } from '../test/support/runtimes.ts';
import { writeSyntheticContent } from './lib/synthetic-content.ts';
import { workerStartup } from './lib/worker-startup.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const { values } = await commandLine({
  command: 'npm run bench:startup',
  summary:
    'How long npm run serve takes to be ready and the memory it then holds, for the real build and synthetic ' +
    "ones, and the Worker's startup CPU and script size.",
  options: {
    sizes: {
      type: 'string',
      default: 'real,100000',
      value: '<list>',
      description: 'builds to measure: real and numbers of API records, comma-separated',
    },
    runs: { type: 'string', default: '3', value: '<n>', wholeNumber: true, description: 'runs of each' },
    work: { type: 'string', value: '<dir>', description: 'make the synthetic builds in this folder and keep them' },
    'worker-runs': {
      type: 'string',
      default: '15',
      value: '<n>',
      wholeNumber: true,
      description: "runs of the Worker's start",
    },
    parts: {
      type: 'string',
      default: 'serve,worker',
      value: '<list>',
      description: 'what to measure: serve, worker or both',
    },
  },
  variables: {},
  examples: ['npm run bench:startup -- --sizes real --parts serve'],
  version: () => projectVersion(),
});
const parts = new Set(values.parts.split(','));
const TOKEN = 'startup-bench-token';
const GOALS = { readyMs: 10_000, rssBytes: 1024 ** 3 };
const workDir = values.work ?? mkdtempSync(join(tmpdir(), 'treefarm-startup-'));
const MiB = 1024 * 1024;

interface Build {
  label: string;
  distDir: string;
  /** How long the API build took, when this run made it. */
  buildMs?: number;
}

/** The synthetic build of `trees` trees, made now unless the work folder holds it already. */
async function syntheticBuild(trees: number): Promise<Build> {
  const distDir = join(workDir, `dist-${trees}`);
  const label = `${trees.toLocaleString('en')} trees`;
  try {
    statSync(join(distDir, MANIFEST_FILE));
    console.error(`reusing ${distDir}`);
    return { label, distDir };
  } catch {
    // Not built yet.
  }
  const content = loadContent(writeSyntheticContent(join(workDir, `content-${trees}`), trees));
  mkdirSync(distDir, { recursive: true });
  const started = performance.now();
  await emitApi(content, distDir);
  const buildMs = performance.now() - started;
  console.error(`built ${label} in ${(buildMs / 1000).toFixed(1)} s`);
  return { label, distDir, buildMs };
}

/** Peak and current resident memory of a process, from /proc. */
function memoryOfOne(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') * 1024, peak: kib('VmHWM') * 1024 };
}

/** The same, summed over the supervisor and its serving processes (the peaks: an upper bound). */
function memoryOf(supervisor: number): { rss: number; peak: number } {
  return [supervisor, ...servingProcesses(supervisor)].map(memoryOfOne).reduce((sum, one) => ({
    rss: sum.rss + one.rss,
    peak: sum.peak + one.peak,
  }));
}

/** One start: from spawn to the ready line, then one answered request; memory at that point. */
async function startOnce(distDir: string) {
  const started = performance.now();
  const served = await startServe({ distDir, tokens: [TOKEN] });
  const readyMs = performance.now() - started;
  try {
    const answer = await fetch(`${served.url}/api/trees?search=1`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    if (answer.status !== 200) throw new Error(`the started server answered ${answer.status}`);
    return { readyMs, ...memoryOf(served.child.pid ?? 0) };
  } finally {
    await served.stop('SIGKILL');
  }
}

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? Number.NaN;

const lines = [
  '| build | API records | stored bodies | pack | API build | ready (median) | RSS when ready | peak RSS |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
];
const verdicts: string[] = [];
try {
  for (const size of parts.has('serve') ? values.sizes.split(',') : []) {
    const build =
      size === 'real'
        ? { label: 'real dist/', distDir: realDistDir, buildMs: undefined }
        : await syntheticBuild(Number(size));
    const manifestPath = join(build.distDir, MANIFEST_FILE);
    const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    const records = Object.values(manifest.counts).reduce((sum, count) => sum + count, 0);
    const runs = [];
    for (let run = 0; run < Number(values.runs); run++) runs.push(await startOnce(build.distDir));
    const readyMs = median(runs.map((run) => run.readyMs));
    const rss = median(runs.map((run) => run.rss));
    const peak = median(runs.map((run) => run.peak));
    lines.push(
      `| ${build.label} | ${records.toLocaleString('en')} | ` +
        `${manifest.pack.bodies.toLocaleString('en')} | ` +
        `${(manifest.pack.size / MiB).toFixed(1)} MiB | ` +
        `${build.buildMs === undefined ? '' : `${(build.buildMs / 1000).toFixed(0)} s`} | ` +
        `${(readyMs / 1000).toFixed(2)} s | ${(rss / MiB).toFixed(0)} MiB | ${(peak / MiB).toFixed(0)} MiB |`,
    );
    if (records >= 100_000) {
      verdicts.push(
        `${readyMs <= GOALS.readyMs ? 'MET   ' : 'MISSED'} ${build.label}: ` +
          `ready <= 10 s: ${(readyMs / 1000).toFixed(2)} s`,
      );
      verdicts.push(
        `${peak <= GOALS.rssBytes ? 'MET   ' : 'MISSED'} ${build.label}: ` +
          `peak RSS <= 1 GiB: ${(peak / MiB).toFixed(0)} MiB`,
      );
    }
  }
  if (parts.has('serve')) {
    console.log(`Start-up of npm run serve, ${values.runs} starts each, ${new Date().toISOString()}\n`);
    console.log(lines.join('\n'));
  }
  if (parts.has('worker')) {
    const worker = await workerStartup(Number(values['worker-runs']));
    console.log(`\nStart-up of the Worker, wrangler check startup ${values['worker-runs']} times each\n`);
    console.log(worker.lines.join('\n'));
    verdicts.push(...worker.verdicts);
  }
  if (verdicts.length > 0) console.log(`\n${verdicts.join('\n')}`);
} finally {
  if (!values.work) rmSync(workDir, { recursive: true, force: true });
}
