// `npm run bench:site`: the wiki's budgets. (1) The weight of a record page: its HTML and the
// CSS it links, each gzipped as a server would send them, for the heaviest record page
// (budget: 30 KB together), beside the home page, the trees table and the planner. (2) The
// time to build the whole site (wiki, API, search index, bundles) from the real content, each
// run in a fresh process into a temporary folder.
// Options: `-- --runs 5` (3 by default).
import '../src/cli/node-check.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildSite } from '../src/build/site.ts';
import { projectDir } from '../src/cli/project-dir.ts';
import { loadContent } from '../src/build/content.ts';
import { kinds } from '../src/schema/kinds.ts';
import { recordPath } from '../src/wiki/site.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const PAGE_BUDGET_BYTES = 30 * 1024;

const { values } = await commandLine({
  command: 'npm run bench:site',
  summary:
    "The wiki's budgets: the weight of the heaviest record page and its CSS gzipped (30 KB), and the time to " +
    'build the whole site, the median of --runs.',
  options: {
    runs: { type: 'string', default: '3', value: '<n>', wholeNumber: true, description: 'builds to time' },
    'build-into': {
      type: 'string',
      value: '<dir>',
      description: '(a child run) build into this folder and print the time',
    },
  },
  variables: {},
  examples: ['npm run bench:site -- --runs 5'],
  version: () => projectVersion(),
});

// A child run: build into the given folder and report the time on stdout.
if (values['build-into']) {
  process.env.CI = '1';
  const started = performance.now();
  await buildSite(values['build-into']);
  console.log(JSON.stringify({ ms: performance.now() - started }));
  process.exit(0);
}

const gzipSize = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface PageWeight {
  path: string;
  html: number;
  htmlGzip: number;
  cssGzip: number;
}

/** A page's HTML and the stylesheets it links, gzipped one by one. */
function weigh(outDir: string, path: string): PageWeight {
  const html = readFileSync(join(outDir, path, 'index.html'));
  const stylesheets = [...html.toString('utf8').matchAll(/<link rel="stylesheet" href="(\/[^"]+)"/g)].map(
    ([, href = '']) => href,
  );
  const cssGzip = stylesheets.reduce((sum, href) => sum + gzipSize(readFileSync(join(outDir, href))), 0);
  return { path, html: html.length, htmlGzip: gzipSize(html), cssGzip };
}

function buildOnce(outDir: string): number {
  const child = spawnSync(process.execPath, [import.meta.filename, '--build-into', outDir], {
    cwd: projectDir,
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`The build failed:\n${child.stderr}`);
  const lastLine = child.stdout.trim().split('\n').at(-1) ?? '';
  return (JSON.parse(lastLine) as { ms: number }).ms;
}

const work = mkdtempSync(join(tmpdir(), 'bench-site-'));
try {
  const outDir = join(work, 'dist');
  const runs = Number(values.runs);
  const times = Array.from({ length: runs }, () => buildOnce(outDir)).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;

  const content = loadContent(join(projectDir, 'content'));
  const weights = kinds.flatMap((kind) =>
    content.entries[kind.id].map((entry) => weigh(outDir, recordPath(kind.id, entry.slug))),
  );
  const total = (weight: PageWeight) => weight.htmlGzip + weight.cssGzip;
  const heaviest = weights.reduce((max, weight) => (total(weight) > total(max) ? weight : max));
  const others = [weigh(outDir, '/'), weigh(outDir, '/trees/'), weigh(outDir, '/planner/')];
  // The planner's script and the data file it loads, which no other page has.
  const plannerHtml = readFileSync(join(outDir, 'planner', 'index.html'), 'utf8');
  const plannerScript = /<script type="module" src="(\/_astro\/[^"]+)"/.exec(plannerHtml)?.[1] ?? '';
  const plannerExtras = {
    script: gzipSize(readFileSync(join(outDir, plannerScript))),
    data: gzipSize(readFileSync(join(outDir, 'planner', 'data.json'))),
  };

  console.log(`\nWiki budgets (${weights.length} record pages, ${runs} builds)\n`);
  console.log('| page | HTML | HTML gzipped | CSS gzipped | HTML + CSS gzipped |');
  console.log('|---|---|---|---|---|');
  for (const weight of [heaviest, ...others]) {
    console.log(
      `| ${weight.path}${weight === heaviest ? ' (heaviest record page)' : ''} | ${kb(weight.html)} | ` +
        `${kb(weight.htmlGzip)} | ${kb(weight.cssGzip)} | ${kb(total(weight))} |`,
    );
  }
  console.log(
    `\n/planner/ also loads its script (${kb(plannerExtras.script)} gzipped) and ` +
      `/planner/data.json (${kb(plannerExtras.data)} gzipped).`,
  );
  // On a shared machine the fastest run is the least disturbed one: report it beside the median.
  console.log(
    `\nWhole site build (wiki, API, search index, bundles): fastest ${seconds(times[0] ?? 0)}, ` +
      `median ${seconds(median)} (runs: ${times.map(seconds).join(', ')})`,
  );
  const withinBudget = total(heaviest) < PAGE_BUDGET_BYTES;
  console.log(
    `Record page budget: ${kb(total(heaviest))} of ${kb(PAGE_BUDGET_BYTES)}: ${withinBudget ? 'within' : 'OVER'}`,
  );
  if (!withinBudget) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
