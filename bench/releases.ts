// `npm run bench:releases`: what data releases cost the API build. Synthetic content of
// `--trees` trees (10,000 by default) is released `--releases` times (8), one tree's figure
// changed before each; then emitApi (each distinct body once, the routing index of the
// current data and of each release, the list of releases) is timed with 0, 1, 4 and all of
// them, in one process, each `--runs` times (1; the median shown), next to the routes, the
// distinct bodies and the files it writes (what a release adds shows from row to row).
import '../src/cli/node-check.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitApi } from '../src/build/emit.ts';
import { loadContent } from '../src/build/content.ts';
import { makeRelease } from '../src/build/make-release.ts';
import { loadReleases } from '../src/build/releases.ts';
import { writeSyntheticContent } from './lib/synthetic-content.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

const { values } = await commandLine({
  command: 'npm run bench:releases',
  summary:
    'What data releases cost the API build: synthetic content released --releases times, then the API built ' +
    'with 0, 1, 4 and all of them.',
  options: {
    trees: { type: 'string', default: '10000', value: '<n>', wholeNumber: true, description: 'synthetic trees' },
    releases: { type: 'string', default: '8', value: '<n>', wholeNumber: true, description: 'releases to make' },
    runs: { type: 'string', default: '1', value: '<n>', wholeNumber: true, description: 'runs of each build' },
    dir: { type: 'string', default: tmpdir(), value: '<dir>', description: 'where the synthetic content is made' },
  },
  variables: {},
  examples: ['npm run bench:releases -- --trees 10000 --releases 8'],
  version: () => projectVersion(),
});

const workDir = mkdtempSync(join(values.dir, 'treefarm-bench-releases-'));
try {
  const contentDir = writeSyntheticContent(workDir, Number(values.trees));
  const treesDir = join(contentDir, 'trees');
  const treeFile = join(treesDir, readdirSync(treesDir).sort()[0] ?? '');
  const releaseCount = Number(values.releases);
  for (let index = 0; index < releaseCount; index++) {
    if (index > 0) {
      const yaml = readFileSync(treeFile, 'utf8');
      writeFileSync(
        treeFile,
        yaml.replace(/^logCount: (\d+)$/m, (_line, count: string) => `logCount: ${+count + 1}`),
      );
    }
    makeRelease(workDir, `Release ${index + 1}.`, { now: new Date(Date.UTC(2026, 0, 1 + index)) });
  }
  const content = loadContent(contentDir);
  const releases = loadReleases(workDir);
  console.log(
    `Release build benchmark: ${values.trees} trees, up to ${releaseCount} releases, ` +
      `median of ${values.runs} runs, Node ${process.version}\n`,
  );
  console.log('| releases | routes | distinct bodies | files written | emitApi ms |');
  console.log('| -------: | -----: | --------------: | ------------: | ---------: |');
  for (const count of [...new Set([0, 1, 4, releaseCount])].filter((count) => count <= releaseCount)) {
    const times: number[] = [];
    let written = { routes: 0, bodies: 0, files: 0 };
    for (let run = 0; run < Number(values.runs); run++) {
      const outDir = mkdtempSync(join(workDir, 'out-'));
      const started = performance.now();
      const api = await emitApi(content, outDir, releases.slice(0, count));
      times.push(performance.now() - started);
      const files = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      written = { routes: api.routes, bodies: api.bodies, files: files.length };
      rmSync(outDir, { recursive: true, force: true });
    }
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
    const { routes, bodies, files } = written;
    console.log(`| ${count} | ${routes} | ${bodies} | ${files} | ${median.toFixed(0)} |`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
