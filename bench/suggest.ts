// `npm run bench:suggest`: what the suggestion index costs, and how fast /api/{kind}/suggest
// answers beside the name search.
//
// 1. Index cost, each size in a fresh child process: the real content and synthetic content of
//    `--sizes` trees (10,000 by default; bench/lib/synthetic-content.ts). Files and bytes of the
//    index beside the whole API, the time to make the index beside the whole API emission, the
//    largest near-miss shard, and what a near-miss query reads (shards and bytes) for a typo of
//    every name (1 swap, and 2 edits for keys of 8 or more characters).
// 2. Throughput: the server (src/server/serve.ts, one process) over the real dist/ and over an
//    API-only build of the largest synthetic size, wrk side by side in one run: the name search,
//    a prefix suggestion, and near misses 1 and 2 edits away.
import '../src/cli/node-check.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetFilesBelow } from '../src/build/deploy-limits.ts';
import { emitApi } from '../src/build/emit.ts';
import { loadContent, type Content } from '../src/build/content.ts';
import { projectDir } from '../src/cli/project-dir.ts';
import { suggestRoutes } from '../src/build/suggest-index.ts';
import { storedBodyPath, SUGGEST_SHARD } from '../src/contract/paths.ts';
import { resolve, type RouteIndex } from '../src/contract/resolve.ts';
import { searchKey } from '../src/contract/search-key.ts';
import { kinds } from '../src/schema/kinds.ts';
import { loadBodyStore } from '../src/server/body-store.ts';
import { scopeRoutes } from '../test/support/dist-routes.ts';
import {
  loaderLine,
  measure,
  median,
  nodeTarget,
  ROUNDS,
  load,
  type Result,
  type Target,
  WARM_UP_SECONDS,
} from './lib/load.ts';
import { realContentDir, writeSyntheticContent } from './lib/synthetic-content.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const { values } = await commandLine({
  command: 'npm run bench:suggest',
  summary:
    'What the suggestion index costs the build (real and synthetic content, each in a fresh child process), ' +
    'and how fast /api/{kind}/suggest answers beside the name search.',
  options: {
    sizes: { type: 'string', default: '10000', value: '<n,n>', description: 'synthetic trees, comma-separated' },
    dir: { type: 'string', default: tmpdir(), value: '<dir>', description: 'where the synthetic content is made' },
    'skip-serve': { type: 'boolean', default: false, description: 'measure the index only' },
    'measure-content': {
      type: 'string',
      value: '<label and dir>',
      description: '(a child run) measure the content in this folder',
    },
  },
  variables: {},
  examples: ['npm run bench:suggest -- --sizes 10000 --skip-serve'],
  version: () => projectVersion(),
});

interface IndexCost {
  label: string;
  records: number;
  /** Files emitApi wrote, and their bytes. */
  apiFiles: number;
  apiBytes: number;
  /** Routes of the suggestion index, and the distinct bodies answering them (stored once each). */
  suggestRoutes: number;
  suggestBodies: number;
  suggestBytes: number;
  shards: number;
  largestShardBytes: number;
  emitMs: number;
  indexMs: number;
  typoQueries: number;
  meanShardsRead: number;
  maxShardsRead: number;
  meanBytesRead: number;
  maxBytesRead: number;
}

/** A typo of a key: its middle neighbours swapped (1 edit), or also one letter dropped (2 edits). */
function typos(key: string): string[] {
  const middle = Math.floor(key.length / 2);
  const swapped = key.slice(0, middle - 1) + key[middle] + key[middle - 1] + key.slice(middle + 1);
  return key.length >= 8 ? [swapped, swapped.slice(0, 1) + swapped.slice(2)] : [swapped];
}

/** In the child: the index's cost over one content folder. */
async function measureIndex(contentDir: string, label: string): Promise<IndexCost> {
  const outDir = mkdtempSync(join(values.dir, 'treefarm-bench-suggest-'));
  try {
    const content = loadContent(contentDir);
    let started = performance.now();
    const { manifest } = await emitApi(content, outDir);
    const emitMs = performance.now() - started;
    started = performance.now();
    for (const kind of kinds) for (const _route of suggestRoutes(kind, content.entries[kind.id]));
    const indexMs = performance.now() - started;
    const files = assetFilesBelow(outDir);
    const routes = scopeRoutes(undefined, outDir);
    const suggestions = [...routes].filter(([route]) => route.includes('/suggest/'));
    const shardBodies = new Set(suggestions.filter(([route]) => route.includes(`/${SUGGEST_SHARD}`)).map(([, b]) => b));
    const bodies = new Set(suggestions.map(([, body]) => body));
    const sizeOf = (body: string) => statSync(join(outDir, storedBodyPath(body))).size;
    const reads = await nearMissReads(content, outDir);
    return {
      label,
      records: Object.values(manifest.counts).reduce((total, count) => total + count, 0),
      apiFiles: files.length,
      apiBytes: files.reduce((total, file) => total + file.size, 0),
      suggestRoutes: suggestions.length,
      suggestBodies: bodies.size,
      suggestBytes: [...bodies].reduce((total, body) => total + sizeOf(body), 0),
      shards: shardBodies.size,
      largestShardBytes: Math.max(...[...shardBodies].map(sizeOf)),
      emitMs,
      indexMs,
      typoQueries: reads.length,
      meanShardsRead: reads.reduce((total, read) => total + read.shards, 0) / reads.length,
      maxShardsRead: Math.max(...reads.map((read) => read.shards)),
      meanBytesRead: reads.reduce((total, read) => total + read.bytes, 0) / reads.length,
      maxBytesRead: Math.max(...reads.map((read) => read.bytes)),
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** What each near-miss query (a typo of every name) reads through the resolver: near-miss shards and their bytes. */
async function nearMissReads(content: Content, distDir: string): Promise<{ shards: number; bytes: number }[]> {
  const { index } = await loadBodyStore(distDir);
  const reads: { shards: number; bytes: number }[] = [];
  for (const kind of kinds) {
    for (const entry of content.entries[kind.id]) {
      if (!('name' in entry.data)) continue;
      for (const typo of typos(searchKey(entry.data.name))) {
        const read = { shards: 0, bytes: 0 };
        const counting: RouteIndex = {
          ...index,
          async text(body) {
            const text = await index.text(body);
            read.shards++;
            read.bytes += text.length;
            return text;
          },
        };
        const resolved = await resolve(counting, { endpoint: kind.id, suggest: true, search: typo, release: null });
        if (resolved.type === 'made') reads.push(read);
      }
    }
  }
  return reads;
}

function measureInChild(contentDir: string, label: string): IndexCost {
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--dir', values.dir, '--measure-content', `${label}\n${contentDir}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1024 * 1024 },
  );
  if (child.status !== 0) throw new Error(`the measuring process failed (exit ${child.status})`);
  return JSON.parse(child.stdout) as IndexCost;
}

const kib = (bytes: number) => `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KiB`;
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const count = (value: number) => value.toLocaleString('en-US');
/** A row of a Markdown table. */
const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;

function printCosts(costs: IndexCost[]): void {
  console.log(
    row([
      'content',
      'records',
      'suggestion routes (distinct bodies)',
      'their stored bytes (all API bytes)',
      'near-miss shards',
      'largest shard',
      'index made in',
      'whole API emitted in',
    ]),
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of costs) {
    console.log(
      row([
        c.label,
        count(c.records),
        `${count(c.suggestRoutes)} (${count(c.suggestBodies)})`,
        `${mib(c.suggestBytes)} (${mib(c.apiBytes)}, ${count(c.apiFiles)} files)`,
        count(c.shards),
        kib(c.largestShardBytes),
        `${(c.indexMs / 1000).toFixed(2)} s`,
        `${(c.emitMs / 1000).toFixed(2)} s`,
      ]),
    );
  }
  console.log(
    '\n| content | typo queries | shards read, mean | shards read, max | bytes read, mean | bytes read, max |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const c of costs) {
    console.log(
      row([
        c.label,
        count(c.typoQueries),
        c.meanShardsRead.toFixed(1),
        c.maxShardsRead,
        kib(c.meanBytesRead),
        kib(c.maxBytesRead),
      ]),
    );
  }
}

/** The server over one build folder, and the queries to ask it. */
interface ServeCase {
  label: string;
  distDir: string;
  scenarios: { name: string; query: string }[];
}

const suggest = (search: string) => `/api/trees/suggest?search=${encodeURIComponent(search)}`;

async function printThroughput(cases: ServeCase[]): Promise<void> {
  console.log(`\n${loaderLine()}\n`);
  console.log('| content | query | req/s | p99 ms | errors | CPU µs/req | vs name search |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const serveCase of cases) {
    let target: Target | undefined;
    try {
      target = await nodeTarget(serveCase.label, 'ours', 'src/server/serve.ts', { DIST_DIR: serveCase.distDir });
      const rounds = new Map<string, Result[]>(serveCase.scenarios.map((scenario) => [scenario.name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const scenario of serveCase.scenarios) {
          const url = target.url(scenario);
          load(url, WARM_UP_SECONDS);
          rounds.get(scenario.name)?.push(measure(target, url));
        }
      }
      const nameSearch = median((rounds.get(serveCase.scenarios[0]?.name ?? '') ?? []).map((r) => r.requestsPerSecond));
      for (const scenario of serveCase.scenarios) {
        const results = rounds.get(scenario.name) ?? [];
        const rps = median(results.map((r) => r.requestsPerSecond));
        console.log(
          row([
            serveCase.label,
            `${scenario.name} (\`${scenario.query}\`)`,
            Math.round(rps),
            median(results.map((r) => r.p99Ms)).toFixed(2),
            results.reduce((total, r) => total + r.errors, 0),
            median(results.map((r) => r.cpuMicros)).toFixed(1),
            `${(rps / nameSearch).toFixed(2)}x`,
          ]),
        );
      }
    } finally {
      await target?.stop();
    }
  }
}

async function main(): Promise<void> {
  const sizes = values.sizes.split(',').filter(Boolean).map(Number);
  console.log(
    `Suggestion index benchmark: real content and ${sizes.join(', ')} synthetic trees, Node ${process.version}`,
  );
  const workDirs: string[] = [];
  try {
    const costs = [measureInChild(realContentDir, 'real content')];
    const synthetic: { trees: number; contentDir: string }[] = [];
    for (const trees of sizes) {
      const workDir = mkdtempSync(join(values.dir, `treefarm-bench-suggest-${trees}-`));
      workDirs.push(workDir);
      const contentDir = writeSyntheticContent(workDir, trees);
      synthetic.push({ trees, contentDir });
      costs.push(measureInChild(contentDir, `${count(trees)} synthetic trees`));
    }
    printCosts(costs);
    if (values['skip-serve']) return;
    const cases: ServeCase[] = [
      {
        label: 'real content (dist/)',
        distDir: join(projectDir, 'dist'),
        scenarios: [
          { name: 'name search', query: '/api/trees?search=Oak%20Tree' },
          { name: 'suggest, prefix', query: suggest('oak') },
          { name: 'suggest, 1 edit', query: suggest('sequioa') },
          { name: 'suggest, 2 edits', query: suggest('giant sekuoya') },
        ],
      },
    ];
    const largest = synthetic.at(-1);
    if (largest) {
      const distDir = join(largest.contentDir, '..', 'dist');
      await emitApi(loadContent(largest.contentDir), distDir);
      const level = Math.floor(largest.trees / 2);
      cases.push({
        label: `${count(largest.trees)} synthetic trees (API only)`,
        distDir,
        scenarios: [
          { name: 'name search', query: `/api/trees?search=${encodeURIComponent(`Synthetic Tree ${level}`)}` },
          { name: 'suggest, prefix', query: suggest(`synthetic tree ${String(level).slice(0, 2)}`) },
          { name: 'suggest, 1 edit', query: suggest('sinthetic') },
          { name: 'suggest, 2 edits', query: suggest(`synthetic tre ${level}x`) },
        ],
      });
    }
    await printThroughput(cases);
  } finally {
    for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
  }
}

// Last, so every constant above is initialised.
if (values['measure-content']) {
  const [label = '', contentDir = ''] = values['measure-content'].split('\n');
  console.log(JSON.stringify(await measureIndex(contentDir, label)));
} else {
  await main();
}
