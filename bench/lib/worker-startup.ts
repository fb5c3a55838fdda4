// The Worker's part of `npm run bench:startup`: what a cold isolate pays before its first answer.
// Each variant is built as `wrangler deploy --dry-run` builds it, from wrangler.toml (its [assets]
// left out: they are no part of the script); its size is the main module's (what every isolate
// compiles; the lazily loaded routes are modules of their own) and the whole upload, raw and
// gzipped as wrangler counts them; its start is `wrangler check startup` (workerd's CPU profile of
// importing the main module) run `runs` times, the variants interleaved, as the non-idle samples.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { wranglerBin } from '../../src/cloudflare/deploy-cli.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));
const KiB = 1024;

interface Variant {
  label: string;
  /** Lines added to the config. */
  extra: string;
  /** Whether the lazily loaded routes stay modules of their own (find_additional_modules and the build). */
  lazy: boolean;
}

/**
 * The route modules of a variant that bundles them into its script: /mcp's as given, the Discord
 * app's a stub (without one, the app would be bundled in too, and the variants would differ by more
 * than the MCP server).
 */
const bundledRoutes = (mcpRoute: string) =>
  `[alias]\n"./lazy/mcp.js" = ${JSON.stringify(join(projectDir, mcpRoute))}\n` +
  `"./lazy/discord.js" = ${JSON.stringify(join(projectDir, 'bench/lib/no-discord-route.ts'))}\n`;

/**
 * The shipped Worker; the Worker without /mcp (its routes stubs: the Worker as before MCP and the
 * Discord app); /mcp bundled in.
 */
const variants: Variant[] = [
  { label: 'the Worker (/mcp loaded by its first request)', extra: '', lazy: true },
  { label: 'the Worker without /mcp', extra: bundledRoutes('bench/lib/no-mcp-route.ts'), lazy: false },
  {
    label: '/mcp bundled into the script (a lazy import() alone)',
    extra: bundledRoutes('src/worker/lazy/mcp.ts'),
    lazy: false,
  },
];

/** wrangler.toml for one variant: main made absolute, no [assets], the route module's settings as the variant says. */
function configOf(variant: Variant): string {
  let config = readFileSync(join(projectDir, 'wrangler.toml'), 'utf8')
    .replace(/^main = "(.*)"$/m, (_line, main: string) => `main = ${JSON.stringify(join(projectDir, main))}`)
    .replace(/^\[assets\]\n(?:[^[\n].*\n|\n)*/m, '');
  if (!variant.lazy)
    config = config
      .replace(/^find_additional_modules = .*\n/m, '')
      .replace(/^rules = .*\n/m, '')
      .replace(/^\[build\]\n(?:[^[\n].*\n|\n)*/m, '');
  return `${config}\n${variant.extra}`;
}

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

/** The modules of a bundle `wrangler deploy --outfile` wrote (multipart form data), the main one named. */
async function sizesOf(bundlePath: string): Promise<Sizes> {
  const bytes = readFileSync(bundlePath);
  const boundary = bytes.subarray(2, bytes.indexOf(10)).toString().trim();
  const form = await new Response(bytes, {
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
  }).formData();
  const { main_module: mainName } = JSON.parse(String(form.get('metadata'))) as { main_module: string };
  const modules = [...form.entries()].flatMap(([name, value]) =>
    value instanceof Blob && value.type !== 'application/source-map' ? [{ name, value }] : [],
  );
  const main = modules.find(({ name }) => name === mainName)?.value;
  if (!main) throw new Error(`${bundlePath} has no main module ${mainName}`);
  const mainBytes = new Uint8Array(await main.arrayBuffer());
  const all = new Uint8Array(await new Blob(modules.map(({ value }) => value)).arrayBuffer());
  return {
    main: mainBytes.length,
    mainGzip: gzipSync(mainBytes).length,
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

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? Number.NaN;

export interface WorkerStartup {
  lines: string[];
  verdicts: string[];
}

export async function workerStartup(runs: number): Promise<WorkerStartup> {
  const work = mkdtempSync(join(tmpdir(), 'treefarm-worker-startup-'));
  try {
    const built = await Promise.all(
      variants.map(async (variant, index) => {
        const config = join(work, `wrangler-${index}.toml`);
        writeFileSync(config, configOf(variant));
        const bundle = join(work, `worker-${index}.bundle`);
        wrangler(['deploy', '--dry-run', '--config', config, '--outfile', bundle]);
        return { variant, bundle, sizes: await sizesOf(bundle), activeMs: [] as number[] };
      }),
    );
    for (let run = 0; run < runs; run++)
      for (const [index, one] of built.entries()) {
        const profile = join(work, `profile-${index}.cpuprofile`);
        wrangler(['check', 'startup', '--worker', one.bundle, '--outfile', profile]);
        one.activeMs.push(activeMs(profile));
      }
    const [shipped, withoutMcp] = built;
    if (!shipped || !withoutMcp) throw new Error('the Worker variants were not built');
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
    const verdicts = [
      `${cpuRatio <= 1.1 ? 'MET   ' : 'MISSED'} Worker startup CPU <= 1.1x the Worker without /mcp: ` +
        `${cpuRatio.toFixed(2)}x`,
      `${gzipRatio <= 1.1 ? 'MET   ' : 'MISSED'} Worker main script gzipped within 10 % of the Worker without /mcp: ` +
        `${gzipRatio.toFixed(3)}x`,
    ];
    return { lines, verdicts };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
