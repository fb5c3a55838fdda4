// `npm run bench:deploy-scale`: the deployment at scale, as an operator would make it. Content
// (the real content/ and releases/, or `--trees` synthetic trees) is copied to a temp data
// folder (TREEFARM_DATA_DIR), released `--releases` times with `npm run release`, each release
// after changing one figure of `--changes` trees; then `npm run build -- --out` builds it under
// `/usr/bin/time -v` (wall time and peak RSS), and the result is measured as wrangler would
// upload it (.assetsignore honoured): files, the largest (and the wiki's largest near-miss file,
// and what its "Did you mean" reads for a typo), the plan it needs, what the build's deploy-limits
// check warns, and the files the last release added. The Worker module (in this process, over a
// stand-in of its assets binding) shows what a cold isolate reads before its first answer; then
// (`--worker`) `npm run worker` serves the build in workerd, and every release's lists and pinned searches are asked.
// With `--bodies r2` it also counts the R2 mode (the static assets without api/: files, plan,
// largest, those over 25 MiB; the R2 objects: count, bytes, largest) and serves that mode
// (BODIES=r2, wrangler's local R2 seeded first). With `--one-more` (and `--bodies r2`) it then
// changes one tree's figure, makes one more release as above, builds again into a second folder
// and counts what a deploy would upload to a bucket holding the first build: the new build's
// R2 objects whose keys the first's lack (bodies, index files, downloads and their listing), and
// the static files of contents the first build lacks (as wrangler uploads them), in the R2 mode
// and assets-only. Opt-in: it doubles the build time.
// Options: --trees 0 (0: the real content), --releases 51, --changes 1, --worker, --bodies
// assets|r2, --one-more, --dir <tmp>.
import '../src/cli/node-check.ts';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import {
  type AssetFile,
  assetFilesBelow,
  assetsIgnoreOf,
  planNeeded,
  uploadedFiles,
  WORKER_ASSET_LIMITS,
  workerAssetWarnings,
} from '../src/build/deploy-limits.ts';
import { projectDir } from '../src/cli/project-dir.ts';
import { didYouMean } from '../src/wiki/search-suggest.ts';
import { BUCKET_FOLDERS } from '../src/contract/bucket-layout.ts';
import { MANIFEST_FILE } from '../src/contract/paths.ts';
import { buildManifestSchema, type BuildManifest } from '../src/schema/manifest.ts';
import { startWorker } from '../src/cloudflare/worker-dev.ts';
import { type BucketPlan, bucketPlan, staticInR2Mode } from '../src/cloudflare/bucket-objects.ts';
import { freePort } from '../test/support/runtimes.ts';
import { realContentDir, writeSyntheticContent } from './lib/synthetic-content.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const { values } = await commandLine({
  command: 'npm run bench:deploy-scale',
  summary:
    'The deployment at scale: content released --releases times with npm run release, built with npm run ' +
    'build -- --out, and the files a deploy uploads counted (with --worker, served by the Worker).',
  options: {
    trees: {
      type: 'string',
      default: '0',
      value: '<n>',
      wholeNumber: true,
      description: 'synthetic trees (0: the real content)',
    },
    releases: { type: 'string', default: '51', value: '<n>', wholeNumber: true, description: 'releases to make' },
    changes: {
      type: 'string',
      default: '1',
      value: '<n>',
      wholeNumber: true,
      description: 'trees changed before each release',
    },
    worker: { type: 'boolean', default: false, description: 'serve the result in the Worker and time a request' },
    bodies: { type: 'string', default: 'assets', value: '<mode>', description: "the Worker's mode: assets or r2" },
    'one-more': { type: 'boolean', default: false, description: 'time one more release and build after the rest' },
    dir: { type: 'string', default: tmpdir(), value: '<dir>', description: 'where the data folder is made' },
  },
  variables: {},
  examples: ['npm run bench:deploy-scale -- --trees 10000 --releases 12'],
  version: () => projectVersion(),
});
const TOKEN = 'deploy-scale-token';
const MiB = 1024 * 1024;
const node = process.execPath;
const count = (value: number) => value.toLocaleString('en-US');

/** The data folder: content/ (real or synthetic) and the real releases/ for real content. */
function dataFolder(workDir: string, trees: number): string {
  const dataDir = join(workDir, 'data');
  if (trees === 0) {
    cpSync(realContentDir, join(dataDir, 'content'), { recursive: true });
    cpSync(join(projectDir, 'releases'), join(dataDir, 'releases'), { recursive: true });
  } else writeSyntheticContent(dataDir, trees);
  return dataDir;
}

/** Raises the logValue of `changes` trees (the round-th group of them), as an editor would. */
function changeTrees(dataDir: string, round: number, changes: number): void {
  const treesDir = join(dataDir, 'content', 'trees');
  const files = readdirSync(treesDir).sort();
  for (let index = 0; index < changes; index++) {
    const file = join(treesDir, files[(round * changes + index) % files.length] ?? '');
    const yaml = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      yaml.replace(/^logValue: (\d+)$/m, (_line, value: string) => `logValue: ${Number(value) + 1}`),
    );
  }
}

function run(command: string[], env: NodeJS.ProcessEnv): { stdout: string; stderr: string } {
  const result = spawnSync(command[0] ?? '', command.slice(1), { cwd: projectDir, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr}`);
  return result;
}

/** The round-th release: `changes` trees changed, then `npm run release`. */
function release(dataDir: string, round: number, changes: number, env: NodeJS.ProcessEnv): void {
  changeTrees(dataDir, round, changes);
  run([node, 'src/build/release-cli.ts', '--notes', `Weekly release ${round + 1}.`], env);
}

/** `npm run build -- --out outDir` under `/usr/bin/time -v`: its stderr holds the wall time, CPU and peak RSS. */
const buildInto = (outDir: string, env: NodeJS.ProcessEnv) =>
  run(['/usr/bin/time', '-v', node, 'src/build/cli.ts', '--out', outDir], env);

/**
 * What a deploy of `next` uploads to a bucket holding `before`'s objects: the objects whose keys
 * `before` lacks (every key names its content: the objects whose content changed), by kind.
 */
function uploadsAfter(before: BucketPlan, next: BucketPlan) {
  const beforeKeys = new Set(before.objects.map(({ key }) => key));
  const added = next.objects.filter(({ key }) => !beforeKeys.has(key));
  const kinds = Object.entries(BUCKET_FOLDERS).map(
    ([kind, folder]) => [kind, added.filter(({ key }) => key.startsWith(folder)).length] as const,
  );
  return { added, kinds };
}

/**
 * The files of `next` (in `nextDir`) whose contents no file of `before` (in `beforeDir`) had:
 * what wrangler uploads, as its asset hash is of a file's bytes and extension, not its path.
 */
function newContents(
  [beforeDir, before]: [string, readonly AssetFile[]],
  [nextDir, next]: [string, readonly AssetFile[]],
): AssetFile[] {
  const hashOf = (dir: string, path: string) =>
    `${extname(path)} ${createHash('sha256')
      .update(readFileSync(join(dir, path)))
      .digest('hex')}`;
  const known = new Set(before.map(({ path }) => hashOf(beforeDir, path)));
  return next.filter(({ path }) => !known.has(hashOf(nextDir, path)));
}

const largerOf = (max: AssetFile, file: AssetFile) => (file.size > max.size ? file : max);

/** Files by top folder (api/ by its second level), most first. */
function byFolderOf(files: readonly AssetFile[]): string {
  const byFolder = new Map<string, number>();
  for (const file of files) {
    const folder = file.path.startsWith('api/') ? file.path.split('/').slice(0, 2).join('/') : file.path.split('/')[0];
    byFolder.set(folder ?? '', (byFolder.get(folder ?? '') ?? 0) + 1);
  }
  return [...byFolder]
    .sort((a, b) => b[1] - a[1])
    .map(([folder, n]) => `${folder} ${count(n)}`)
    .join(', ');
}

/** The files wrangler would upload from `dir`. */
function uploaded(dir: string) {
  const files = assetFilesBelow(dir);
  const ignored = assetsIgnoreOf(dir);
  return { files: uploadedFiles(files, ignored), plan: planNeeded(files, ignored) };
}

/** What a cold isolate of the Worker module reads before answering `target`: each asset's path and size. */
async function coldReads(distDir: string, target: string): Promise<{ reads: [string, number][]; ms: number }> {
  const reads: [string, number][] = [];
  const assets = {
    async fetch(request: Request | string) {
      const path = new URL(typeof request === 'string' ? request : request.url).pathname.slice(1);
      try {
        const bytes = readFileSync(join(distDir, path));
        reads.push([path, bytes.length]);
        return new Response(new Uint8Array(bytes));
      } catch {
        return new Response('not found', { status: 404 });
      }
    },
  };
  // A fresh module: a new isolate.
  const module = (await import(`../src/worker/worker.ts?cold=${Math.random()}`)) as {
    default: { fetch(request: Request, env: unknown): Promise<Response> };
  };
  const started = performance.now();
  const request = new Request(`https://bench.example${target}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const response = await module.default.fetch(request, { ASSETS: assets, API_TOKENS: TOKEN });
  if (response.status !== 200) throw new Error(`${target}: ${response.status}`);
  return { reads, ms: performance.now() - started };
}

/** Every release's lists and pinned searches in workerd; the first request's time. */
async function askWorker(distDir: string, manifest: BuildManifest, name: string) {
  const r2 = values.bodies === 'r2';
  const seeding = performance.now();
  const worker = await startWorker({
    port: await freePort(),
    assetsDir: distDir,
    tokens: [TOKEN],
    ...(r2 ? { bodies: 'r2' as const, persistDir: join(distDir, '..', 'r2') } : {}),
  });
  if (r2) {
    const seconds = ((performance.now() - seeding) / 1000).toFixed(0);
    console.log(`- BODIES=r2: wrangler's local R2 seeded and the Worker up in ${seconds} s`);
  }
  const failures: string[] = [];
  let asked = 0;
  try {
    const get = (target: string) => fetch(`${worker.url}${target}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    let started = performance.now();
    const first = await get(`/api/trees?search=${encodeURIComponent(name)}`);
    const firstMs = performance.now() - started;
    if (first.status !== 200) failures.push(`first request: ${first.status}`);
    started = performance.now();
    for (const release of manifest.releases) {
      for (const target of [
        ...Object.keys(manifest.counts).map((kind) => `/api/${kind}?release=${release.id}`),
        `/api/trees?release=${release.id}&search=1`,
        `/api/trees?release=${release.id}&search=${encodeURIComponent(name)}`,
        `/api/trees/suggest?release=${release.id}&search=${encodeURIComponent(name.slice(0, 3))}`,
      ]) {
        const response = await get(target);
        await response.arrayBuffer();
        asked++;
        if (response.status !== 200 || response.headers.get('x-data-version') !== release.version)
          failures.push(`${target}: ${response.status} ${response.headers.get('x-data-version')}`);
      }
    }
    return { firstMs, asked, failures, allMs: performance.now() - started };
  } finally {
    await worker.close();
  }
}

const trees = Number(values.trees);
const workDir = mkdtempSync(join(values.dir, 'treefarm-deploy-scale-'));
try {
  const dataDir = dataFolder(workDir, trees);
  const env = { ...process.env, TREEFARM_DATA_DIR: dataDir, CI: '1' };
  const releaseCount = Number(values.releases);
  const started = performance.now();
  for (let round = 0; round < releaseCount; round++) release(dataDir, round, Number(values.changes), env);
  const releasingS = (performance.now() - started) / 1000;
  const outDir = join(workDir, 'dist');
  const build = buildInto(outDir, env);
  const peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(build.stderr)?.[1]);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)/.exec(build.stderr)?.[1];
  const cpuSeconds = ['User', 'System'].reduce(
    (sum, kind) => sum + Number(new RegExp(`${kind} time \\(seconds\\): ([\\d.]+)`).exec(build.stderr)?.[1] ?? 0),
    0,
  );
  const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), 'utf8')));
  const { files, plan } = uploaded(outDir);
  const largest = files.reduce(largerOf, { path: '', size: 0 });
  const newest = manifest.releases[0]?.id ?? '';
  const newestIndexFiles = files.filter((file) => file.path.startsWith(`api/index/releases/${newest}/`)).length;
  const name = trees === 0 ? 'Oak Tree' : `Synthetic Tree ${Math.ceil(trees / 2)}`;
  const cold = await coldReads(outDir, `/api/trees?search=${encodeURIComponent(name)}`);
  const coldIndex = cold.reads.filter(([path]) => path.startsWith('api/index/'));
  const bodyBytes = cold.reads.filter(([path]) => path.startsWith('api/bodies/')).reduce((s, [, size]) => s + size, 0);

  console.log(
    `Deployment at scale: ${trees === 0 ? 'the real content' : `${count(trees)} synthetic trees`}, ` +
      `${count(releaseCount)} releases made (${values.changes} tree(s) changed each, ${releasingS.toFixed(0)} s), ` +
      `${manifest.releases.length} in the build, Node ${process.version}, ${new Date().toISOString()}\n`,
  );
  console.log(
    `- build: ${wall} wall, ${cpuSeconds.toFixed(0)} s of CPU (user + system), ` +
      `peak RSS ${(peakKiB / 1024).toFixed(0)} MiB (/usr/bin/time -v)`,
  );
  console.log(
    `- files to upload: ${count(files.length)} (${plan ? `Workers ${plan} plan` : 'no Workers plan'}); ` +
      `largest ${largest.path} ${(largest.size / MiB).toFixed(2)} MiB`,
  );
  console.log(`- by folder: ${byFolderOf(files)}`);
  const near = files.filter((file) => file.path.startsWith('search/near/')).reduce(largerOf, { path: '', size: 0 });
  console.log(`- the largest of the wiki's near-miss files: ${near.path} ${(near.size / 1024).toFixed(1)} KiB`);
  const typo = `${name[0]}${name.slice(2)}`;
  const nearReads: number[] = [];
  const meant = await didYouMean(typo, async (path) => {
    const bytes = readFileSync(join(outDir, decodeURIComponent(path)));
    nearReads.push(bytes.length);
    return JSON.parse(bytes.toString('utf8'));
  });
  console.log(
    `- the search page's "Did you mean" for "${typo}": ${meant.join(', ')}; read ${nearReads.length} files ` +
      `(the manifest too), ${(nearReads.reduce((sum, size) => sum + size, 0) / 1024).toFixed(1)} KiB`,
  );
  console.log(`- the build's deploy-limits warnings: ${workerAssetWarnings(files, []).join(' ') || 'none'}`);
  console.log(`- stored bodies ${count(manifest.pack.bodies)}; the newest release's index: ${newestIndexFiles} files`);
  console.log(
    `- cold Worker isolate, GET /api/trees?search=${name}: ${cold.reads.length} reads, ` +
      `${count(coldIndex.reduce((sum, [, size]) => sum + size, 0))} bytes of index ` +
      `(${coldIndex.map(([path, size]) => `${path} ${size}`).join(', ')}), then the body ` +
      `${count(bodyBytes)} bytes; ` +
      `${cold.ms.toFixed(1)} ms in this process`,
  );
  if (values.bodies === 'r2') {
    const bucket = bucketPlan(outDir);
    const objects = bucket.objects.map(({ key, size }) => ({ path: key, size }));
    const largestObject = objects.reduce(largerOf, { path: '', size: 0 });
    const assets = staticInR2Mode(files, bucket);
    const largestAsset = assets.reduce(largerOf, { path: '', size: 0 });
    const assetPlan = planNeeded(assets, []);
    const oversized = assets.filter((file) => file.size > WORKER_ASSET_LIMITS.fileBytes).map((file) => file.path);
    console.log(
      `- R2 mode: ${count(assets.length)} static asset files ` +
        `(${assetPlan ? `Workers ${assetPlan} plan` : 'no Workers plan'}; ` +
        `largest ${largestAsset.path} ${(largestAsset.size / MiB).toFixed(2)} MiB; ` +
        `over 25 MiB: ${oversized.length ? oversized.join(', ') : 'none'}); ` +
        `${count(objects.length)} R2 objects (downloads: ${count(Object.keys(bucket.downloads).length)}), ` +
        `${(objects.reduce((sum, { size }) => sum + size, 0) / MiB).toFixed(1)} MiB ` +
        `(largest ${largestObject.path} ${(largestObject.size / MiB).toFixed(2)} MiB)`,
    );
    console.log(`- R2 mode's assets by folder: ${byFolderOf(assets)}`);
    if (values['one-more']) {
      release(dataDir, releaseCount, 1, env);
      const nextDir = join(workDir, 'dist-one-more');
      buildInto(nextDir, env);
      const nextBucket = bucketPlan(nextDir);
      const uploads = uploadsAfter(bucket, nextBucket);
      const nextFiles = uploaded(nextDir).files;
      const nextAssets = staticInR2Mode(nextFiles, nextBucket);
      const r2Static = newContents([outDir, assets], [nextDir, nextAssets]);
      const assetsOnly = newContents([outDir, files], [nextDir, nextFiles]);
      console.log(
        `- one-record release: uploads ${count(uploads.added.length)} ` +
          `of ${count(nextBucket.objects.length)} R2 objects ` +
          `(${count(uploads.added.reduce((sum, { size }) => sum + size, 0))} bytes) ` +
          `(${uploads.kinds.map(([kind, n]) => `${kind} ${count(n)}`).join(', ')})`,
      );
      console.log(
        `- one-record release, static files of new contents (wrangler uploads): R2 mode ${count(r2Static.length)} ` +
          `of ${count(nextAssets.length)} (${byFolderOf(r2Static)}); assets-only ${count(assetsOnly.length)} ` +
          `of ${count(nextFiles.length)} (${byFolderOf(assetsOnly)})`,
      );
    }
  }
  if (values.worker) {
    const asked = await askWorker(outDir, manifest, name);
    console.log(
      `- npm run worker (workerd): first request ${asked.firstMs.toFixed(0)} ms; ${asked.asked} requests ` +
        `(every release's lists and pinned searches) in ${(asked.allMs / 1000).toFixed(1)} s, ` +
        `${asked.failures.length} wrong${asked.failures.length ? `: ${asked.failures.slice(0, 5).join('; ')}` : ''}`,
    );
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
