// `npm run bench:lighthouse`: Lighthouse (its npm package, mobile, simulated throttling, its
// defaults) on a record page and the planner as `npm start` serves them, in Debian's Chromium
// with the flags the browser tests use (test/support/browser.ts). Prints each category's score and
// the audits issue 49 named (text compression, layout shift); the goal is 100 in every category.
// Options: `-- --runs 3` (each page this many times; the median score of each is shown, and the
// lowest where it differs),
// `-- --keep <dir>` (keep each report's JSON there).
import '../src/cli/node-check.ts';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectDir } from '../src/cli/project-dir.ts';
import { freePort } from '../test/support/runtimes.ts';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../test/support/browser.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const PAGES = ['/trees/oak-tree/', '/planner/'];
const AUDITS = [
  'document-latency-insight',
  'cumulative-layout-shift',
  'first-contentful-paint',
  'largest-contentful-paint',
  'total-blocking-time',
];

const { values } = await commandLine({
  command: 'npm run bench:lighthouse',
  summary:
    'Lighthouse (mobile, simulated throttling) on a record page and the planner as npm start serves them, in ' +
    "Debian's Chromium: each category's score; the goal is 100 in every one.",
  options: {
    runs: { type: 'string', default: '1', value: '<n>', wholeNumber: true, description: 'runs of each page' },
    keep: { type: 'string', value: '<dir>', description: 'keep the reports in this folder' },
  },
  variables: {},
  examples: ['npm run bench:lighthouse -- --runs 5'],
  version: () => projectVersion(),
});

interface Report {
  categories: Record<string, { title: string; score: number | null }>;
  audits: Record<string, { score: number | null; displayValue?: string; details?: { items?: unknown[] } }>;
}

interface NetworkRequest {
  url: string;
  mimeType?: string;
  transferSize?: number;
  resourceSize?: number;
}

/** Lighthouse 12's uses-text-compression passed over smaller files: their headers outweigh them. */
const SMALLEST_CHECKED_BYTES = 1400;

/**
 * The text files (HTML, CSS, JavaScript, JSON, XML, SVG) of 1,400 bytes or more the page loaded
 * with no fewer bytes on the wire than in the file: sent uncompressed. Lighthouse 13 checks only
 * the document itself (document-latency-insight); 12's uses-text-compression checked every file.
 */
function uncompressedText(report: Report): string[] {
  const requests = (report.audits['network-requests']?.details?.items ?? []) as NetworkRequest[];
  return requests
    .filter(({ mimeType = '' }) => /^text\/|javascript|json|xml|svg/.test(mimeType))
    .filter(
      ({ transferSize = 0, resourceSize = 0 }) =>
        resourceSize >= SMALLEST_CHECKED_BYTES && transferSize >= resourceSize,
    )
    .map(({ url }) => new URL(url).pathname);
}

/** `npm start` on a free port; resolves once it prints the wiki's address. */
async function start(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: projectDir,
    env: { ...process.env, PORT: String(port), API_TOKENS: 'lighthouse-bench', ACCESS_LOG: 'off' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let output = '';
  await new Promise<void>((ready, failed) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('  Wiki: ')) ready();
    });
    child.once('exit', (code) => failed(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** One Lighthouse run of `url`, its report. */
function lighthouse(url: string, reportPath: string): Promise<Report> {
  const child = spawn(
    join(projectDir, 'node_modules/.bin/lighthouse'),
    [url, '--quiet', '--output=json', `--output-path=${reportPath}`, `--chrome-flags=${CHROMIUM_FLAGS.join(' ')}`],
    { env: { ...process.env, CHROME_PATH: CHROMIUM_PATH }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return new Promise((resolve, reject) =>
    child.once('close', (code) =>
      code === 0
        ? resolve(JSON.parse(readFileSync(reportPath, 'utf8')) as Report)
        : reject(new Error(`lighthouse exited with ${code} on ${url}`)),
    ),
  );
}

const reports = values.keep ?? mkdtempSync(join(tmpdir(), 'bench-lighthouse-'));
mkdirSync(reports, { recursive: true });
const server = await start();
try {
  for (const page of PAGES) {
    const runs: Report[] = [];
    for (let run = 1; run <= Number(values.runs); run++)
      runs.push(await lighthouse(`${server.url}${page}`, join(reports, `${page.replaceAll('/', '_')}${run}.json`)));
    const scores = (score: (report: Report) => number | null | undefined) =>
      runs.map((report) => Math.round((score(report) ?? 0) * 100)).sort((a, b) => a - b);
    const lowest = (score: (report: Report) => number | null | undefined) => scores(score)[0] ?? 0;
    /** "100 (lowest 99)", or "100" when every run agrees. */
    const medianAndLowest = (score: (report: Report) => number | null | undefined) => {
      const all = scores(score);
      const median = all[Math.floor(all.length / 2)] ?? 0;
      return all[0] === median ? `${median}` : `${median} (lowest ${all[0]})`;
    };
    const categories = Object.entries(runs[0]?.categories ?? {}).map(
      ([id, { title }]) => `${title} ${medianAndLowest((report) => report.categories[id]?.score)}`,
    );
    console.log(`${page} (${runs.length} run${runs.length === 1 ? '' : 's'}, median): ${categories.join(', ')}`);
    const uncompressed = [...new Set(runs.flatMap(uncompressedText))];
    console.log(`  text files sent uncompressed: ${uncompressed.length === 0 ? 'none' : uncompressed.join(', ')}`);
    for (const audit of AUDITS) {
      const shown = runs.map((report) => report.audits[audit]?.displayValue ?? '').join(' / ');
      console.log(`  ${audit}: score ${lowest((report) => report.audits[audit]?.score)} (${shown})`);
    }
  }
} finally {
  // npm start's whole process group: npm, the supervisor and its serving process.
  if (server.child.pid) process.kill(-server.child.pid, 'SIGTERM');
  if (!values.keep) rmSync(reports, { recursive: true, force: true });
}
