// `npm run bench:bundles`: what the SQLite database and the CSV files add to the offline
// bundles. For the project's content (with its releases) and for synthetic content of
// `--trees` trees (comma-separated; 10,000 by default), in one process: the bytes of
// treefarm.sqlite and of csv/, the archives with them and without them (the same entries
// less those files, the manifest without them: the bundle as it was before), and the time to
// make the database, the CSV files and every entry of a bundle (median of `--runs`, 3).
import '../src/cli/node-check.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleEntries, packTarGz, packZip } from '../src/build/bundles.ts';
import type { NamedBytes } from '../src/build/named-bytes.ts';
import { type Content, loadContent } from '../src/build/content.ts';
import { csvFiles } from '../src/build/csv.ts';
import { loadReleases, type Release } from '../src/build/releases.ts';
import { sqliteFile } from '../src/build/sqlite.ts';
import { BUNDLE_MANIFEST, SQLITE_FILE } from '../src/contract/bundle-layout.ts';
import type { Manifest } from '../src/schema/manifest.ts';
import { realContentDir, writeSyntheticContent } from './lib/synthetic-content.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const { values } = await commandLine({
  command: 'npm run bench:bundles',
  summary:
    'What the SQLite database and the CSV files add to the offline bundles: bytes and time, for the ' +
    "project's content and for synthetic content.",
  options: {
    trees: { type: 'string', default: '10000', value: '<n,n>', description: 'synthetic trees, comma-separated' },
    runs: { type: 'string', default: '3', value: '<n>', wholeNumber: true, description: 'runs of each' },
    dir: { type: 'string', default: tmpdir(), value: '<dir>', description: 'where the synthetic content is made' },
  },
  variables: {},
  examples: ['npm run bench:bundles -- --trees 1000,10000 --runs 3'],
  version: () => projectVersion(),
});
const runs = Number(values.runs);

const isTabular = (name: string) => name === SQLITE_FILE || name.startsWith('csv/');

/** The bundle's entries without the database and the CSV files, its manifest without them too. */
function withoutTabular(entries: NamedBytes[]): NamedBytes[] {
  return entries
    .filter((entry) => !isTabular(entry.name))
    .map((entry) => {
      if (entry.name !== BUNDLE_MANIFEST) return entry;
      const manifest = JSON.parse(new TextDecoder().decode(entry.bytes)) as Manifest;
      for (const name of Object.keys(manifest.files)) if (isTabular(name)) delete manifest.files[name];
      return { name: entry.name, bytes: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`) };
    });
}

/** The median time of `runs` calls of `work`, in ms, and its last result. */
function timed<T>(work: () => T): { ms: number; result: T } {
  const times: number[] = [];
  let result = work();
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    result = work();
    times.push(performance.now() - started);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0, result };
}

const kib = (bytes: number) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} KiB`;
const sizeOf = (files: readonly NamedBytes[]) => files.reduce((sum, file) => sum + file.bytes.length, 0);

async function measure(label: string, content: Content, releases: readonly Release[]): Promise<void> {
  const records = Object.values(content.entries).reduce((sum, entries) => sum + entries.length, 0);
  const database = timed(() => sqliteFile(content, releases));
  const csv = timed(() => csvFiles(content, releases));
  const entries = timed(() => bundleEntries(content, releases));
  const before = withoutTabular(entries.result);
  const [tarBefore, tarAfter] = [await packTarGz(before), await packTarGz(entries.result)];
  const [zipBefore, zipAfter] = [packZip(before), packZip(entries.result)];
  const sizes = `${kib(database.result.bytes.length)} | ${kib(sizeOf(csv.result))}`;
  console.log(
    `| ${label} | ${records.toLocaleString('en')} | ${sizes} ` +
      `| ${kib(tarBefore.length)} → ${kib(tarAfter.length)} | ${kib(zipBefore.length)} → ${kib(zipAfter.length)} ` +
      `| ${database.ms.toFixed(0)} | ${csv.ms.toFixed(0)} | ${entries.ms.toFixed(0)} |`,
  );
}

console.log(`Bundle benchmark: median of ${runs} runs, Node ${process.version}\n`);
console.log(
  '| content | records | treefarm.sqlite | csv/ | tar.gz before → after | zip before → after ' +
    '| database ms | CSV ms | all entries ms |',
);
console.log('| ------- | ------: | ------: | ------: | ------: | ------: | ------: | ------: | ------: |');
await measure('the project’s', loadContent(realContentDir), loadReleases(join(realContentDir, '..')));
for (const trees of values.trees.split(',').map(Number)) {
  const workDir = mkdtempSync(join(values.dir, 'treefarm-bench-bundles-'));
  try {
    const content = loadContent(writeSyntheticContent(workDir, trees));
    await measure(`${trees.toLocaleString('en')} synthetic trees`, content, []);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
