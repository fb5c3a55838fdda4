// The Worker's part of `npm run bench:startup`: what a cold isolate pays before its first answer.
// Each variant is built as npm run worker:build builds it (the Worker before /mcp as wrangler
// bundled it then) and packed by `wrangler deploy --dry-run`; its main script is the main module
// with every module it imports at once (what every isolate compiles; the apps, loaded by their
// first request, are modules of their own), beside the whole upload, raw and gzipped; its start
// is `wrangler check startup` (workerd's CPU profile of importing the main module) run `runs`
// times, the variants interleaved, as the non-idle samples. The variant on the new module registry
// (what the date 2026-11-17 turns on, and wrangler.toml's legacy_module_registry flag turns off)
// says when the flag can go.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { gzipSync } from 'node:zlib';
import { wranglerBin } from '../../src/cloudflare/deploy-cli.ts';
import { buildWorker, type WorkerBuildOptions } from '../../src/cloudflare/worker-build-cli.ts';

const KiB = 1024;
/** The Worker as it was before /mcp (issue 56), built from its own sources with its own wrangler.toml. */
const BEFORE_MCP = 'e758c08';

interface Variant {
  label: string;
  /** Writes the variant's modules into `dir`; the wrangler.toml lines that upload them. */
  build(dir: string): Promise<string>;
}

const project = readFileSync(join(projectDir, 'wrangler.toml'), 'utf8');
/** A line of wrangler.toml, as the project sets it. */
const setting = (config: string, name: string): string => {
  const line = new RegExp(`^${name} = .*$`, 'm').exec(config)?.[0];
  if (!line) throw new Error(`wrangler.toml sets no ${name}`);
  return line;
};

/** The compatibility flags wrangler.toml sets (none without the line). */
const flagsLine = /^compatibility_flags = (.*)$/m.exec(project)?.[1];
const projectFlags = (flagsLine === undefined ? [] : JSON.parse(flagsLine)) as string[];
const LEGACY_REGISTRY = 'legacy_module_registry';

/** The Worker as npm run worker:build makes it (with `options`), uploaded as built, at `flags`. */
const built =
  (options: Omit<WorkerBuildOptions, 'outdir'>, flags: readonly string[] = projectFlags) =>
  async (dir: string): Promise<string> => {
    await buildWorker({ ...options, outdir: dir });
    return [
      'name = "startup-bench"',
      `main = ${JSON.stringify(join(dir, 'worker.js'))}`,
      'find_additional_modules = true',
      setting(project, 'rules'),
      setting(project, 'compatibility_date'),
      ...(flags.length > 0 ? [`compatibility_flags = ${JSON.stringify(flags)}`] : []),
    ].join('\n');
  };

/** The apps replaced by stand-ins that load nothing: the Worker as before MCP and the Discord app, on today's code. */
const withoutApps = {
  [join(projectDir, 'src/apps/mcp/app.ts')]: join(projectDir, 'bench/lib/no-mcp-route.ts'),
  [join(projectDir, 'src/apps/discord/app.ts')]: join(projectDir, 'bench/lib/no-discord-route.ts'),
};

/**
 * The Worker at BEFORE_MCP, its sources and wrangler.toml as they were (its own compatibility
 * date), bundled by wrangler as it was then, against today's installed dependencies: a date or
 * a change of our own code that slows every cold start shows against it.
 */
async function beforeMcp(dir: string): Promise<string> {
  // Inside the project, so its imports resolve to node_modules/.
  const sources = join(projectDir, 'out', `startup-${BEFORE_MCP}`);
  rmSync(sources, { recursive: true, force: true });
  mkdirSync(sources, { recursive: true });
  const archive = spawnSync('git', ['archive', BEFORE_MCP, 'src', 'wrangler.toml'], {
    cwd: projectDir,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (archive.status !== 0) throw new Error(`git archive ${BEFORE_MCP} failed: ${archive.stderr}`);
  const unpacked = spawnSync('tar', ['-x', '-C', sources], { input: archive.stdout });
  if (unpacked.status !== 0) throw new Error(`unpacking ${BEFORE_MCP} failed: ${unpacked.stderr}`);
  const config = readFileSync(join(sources, 'wrangler.toml'), 'utf8');
  writeFileSync(join(dir, 'sources'), sources);
  return [
    'name = "startup-bench"',
    `main = ${JSON.stringify(join(sources, 'src/worker/worker.ts'))}`,
    setting(config, 'compatibility_date'),
  ].join('\n');
}

const date = setting(project, 'compatibility_date').split('"')[1];
/**
 * The shipped Worker; on the new module registry (its date's, without the flag); without its
 * apps; with /mcp bundled into its script; and the Worker before MCP at its own date.
 */
const variants: Variant[] = [
  { label: `the Worker (apps loaded by their first request), ${date}`, build: built({}) },
  {
    label: `the Worker on the new module registry (no ${LEGACY_REGISTRY})`,
    build: built(
      {},
      projectFlags.filter((flag) => flag !== LEGACY_REGISTRY),
    ),
  },
  { label: 'the Worker without /mcp and the Discord app', build: built({ replace: withoutApps }) },
  { label: '/mcp bundled into the script (a lazy import() alone)', build: built({ splitting: false }) },
  { label: `the Worker before /mcp (${BEFORE_MCP}, its own date)`, build: beforeMcp },
];

function wrangler(args: string[]): string {
  const run = spawnSync(process.execPath, [wranglerBin, ...args], {
    cwd: projectDir,
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
  });
  if (run.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

interface Sizes {
  main: number;
  mainGzip: number;
  total: number;
  totalGzip: number;
}

/** The modules a module imports at once (not its import() calls), as names relative to it. */
const staticImports = (text: string): string[] =>
  [...text.matchAll(/(?:^|[;\n])\s*(?:import|export)\s[^;(]*?from\s*"([^"]+)"|(?:^|[;\n])\s*import\s*"([^"]+)"/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );

/**
 * The modules of a bundle `wrangler deploy --outfile` wrote (multipart form data): the main
 * script is the main module with every module it imports at once (what each isolate compiles
 * and evaluates before its first answer); the whole upload is every module.
 */
async function sizesOf(bundlePath: string): Promise<Sizes> {
  const bytes = readFileSync(bundlePath);
  const boundary = bytes.subarray(2, bytes.indexOf(10)).toString().trim();
  const form = await new Response(bytes, {
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
  }).formData();
  const { main_module: mainName } = JSON.parse(String(form.get('metadata'))) as { main_module: string };
  const modules = new Map<string, Uint8Array>();
  for (const [name, value] of form.entries())
    if (value instanceof Blob && value.type !== 'application/source-map')
      modules.set(name, new Uint8Array(await value.arrayBuffer()));
  if (!modules.has(mainName)) throw new Error(`${bundlePath} has no main module ${mainName}`);
  const atStart = new Set<string>();
  const visit = (name: string) => {
    const module = modules.get(name);
    if (!module || atStart.has(name)) return;
    atStart.add(name);
    for (const imported of staticImports(new TextDecoder().decode(module)))
      visit(posix.normalize(posix.join(posix.dirname(name), imported)));
  };
  visit(mainName);
  const concatenated = (names: Iterable<string>) =>
    Buffer.concat([...names].map((name) => modules.get(name) ?? new Uint8Array(0)));
  const main = concatenated(atStart);
  const all = concatenated(modules.keys());
  return {
    main: main.length,
    mainGzip: gzipSync(main).length,
    total: all.length,
    totalGzip: gzipSync(all).length,
  };
}

/** Non-idle CPU of a V8 CPU profile in ms: what `wrangler check startup` reports as Active. */
function activeMs(profilePath: string): number {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  let active = 0;
  profile.timeDeltas.forEach((delta, index) => {
    if (names.get(profile.samples[index] ?? 0) !== '(idle)') active += delta;
  });
  return active / 1000;
}

const verdict = (met: boolean) => (met ? 'MET   ' : 'MISSED');

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? Number.NaN;

export interface WorkerStartup {
  lines: string[];
  verdicts: string[];
}

export async function workerStartup(runs: number): Promise<WorkerStartup> {
  const work = mkdtempSync(join(tmpdir(), 'treefarm-worker-startup-'));
  try {
    const built = [];
    for (const [index, variant] of variants.entries()) {
      const dir = join(work, `worker-${index}`);
      mkdirSync(dir);
      const config = join(work, `wrangler-${index}.toml`);
      writeFileSync(config, `${await variant.build(dir)}\n`);
      const bundle = join(work, `worker-${index}.bundle`);
      wrangler(['deploy', '--dry-run', '--config', config, '--outfile', bundle]);
      built.push({ variant, bundle, sizes: await sizesOf(bundle), activeMs: [] as number[] });
    }
    for (let run = 0; run < runs; run++)
      for (const [index, one] of built.entries()) {
        const profile = join(work, `profile-${index}.cpuprofile`);
        wrangler(['check', 'startup', '--worker', one.bundle, '--outfile', profile]);
        one.activeMs.push(activeMs(profile));
      }
    const [shipped, newRegistry, withoutMcp, , before] = built;
    if (!shipped || !newRegistry || !withoutMcp || !before) throw new Error('the Worker variants were not built');
    const kib = (bytes: number) => `${(bytes / KiB).toLocaleString('en', { maximumFractionDigits: 0 })} KiB`;
    const lines = [
      '| Worker | startup CPU (median) | fastest | runs (ms) | main script | gzipped | whole upload | gzipped |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...built.map(
        ({ variant, sizes, activeMs: times }) =>
          `| ${variant.label} | ${median(times).toFixed(1)} ms | ${Math.min(...times).toFixed(1)} ms | ` +
          `${times.map((ms) => ms.toFixed(0)).join(', ')} | ${kib(sizes.main)} | ${kib(sizes.mainGzip)} | ` +
          `${kib(sizes.total)} | ${kib(sizes.totalGzip)} |`,
      ),
    ];
    const cpuRatio = median(shipped.activeMs) / median(withoutMcp.activeMs);
    const gzipRatio = shipped.sizes.mainGzip / withoutMcp.sizes.mainGzip;
    const beforeRatio = median(shipped.activeMs) / median(before.activeMs);
    const registryRatio = median(newRegistry.activeMs) / median(shipped.activeMs);
    const shippedRegistry = projectFlags.includes(LEGACY_REGISTRY) ? 'legacy' : 'new';
    const verdicts = [
      `${verdict(cpuRatio <= 1.15)} Worker startup CPU <= 1.15x the Worker without its apps: ${cpuRatio.toFixed(2)}x`,
      `${verdict(gzipRatio <= 1.1)} Worker main script gzipped within 10 % of the Worker without its apps: ` +
        `${gzipRatio.toFixed(3)}x`,
      `${verdict(beforeRatio <= 1.15)} Worker startup CPU <= 1.15x the Worker before /mcp at its own date: ` +
        `${beforeRatio.toFixed(2)}x`,
      `INFO   the new module registry against the shipped ${shippedRegistry} one: ${registryRatio.toFixed(2)}x`,
    ];
    return { lines, verdicts };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(join(projectDir, 'out', `startup-${BEFORE_MCP}`), { recursive: true, force: true });
  }
}
