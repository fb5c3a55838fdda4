// `npm run bench:releases`: what data releases cost the API build. Synthetic content of
// `--trees` trees (10,000 by default) is released `--releases` times (8), one tree's figure
// changed before each; then emitApi (the current API, each release's API below
// api/releases/<id>/ and the list of releases) is timed with 0, 1, 4 and all of them, in
// one process, each `--runs` times (1; the median shown), next to the files it writes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { emitApi } from '../src/build/api.ts';
import { loadContent } from '../src/build/content.ts';
import { makeRelease } from '../src/build/make-release.ts';
import { loadReleases } from '../src/build/releases.ts';
import { writeSyntheticContent } from './lib/synthetic-content.ts';

const { values } = parseArgs({
  options: {
    trees: { type: 'string', default: '10000' },
    releases: { type: 'string', default: '8' },
    runs: { type: 'string', default: '1' },
    dir: { type: 'string', default: tmpdir() },
  },
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
    makeRelease(workDir, `Release ${index + 1}.`, new Date(Date.UTC(2026, 0, 1 + index)));
  }
  const content = loadContent(contentDir);
  const releases = loadReleases(workDir);
  console.log(
    `Release build benchmark: ${values.trees} trees, up to ${releaseCount} releases, ` +
      `median of ${values.runs} runs, Node ${process.version}\n`,
  );
  console.log('| releases | API files | emitApi ms | ms per 1,000 files |');
  console.log('| -------: | --------: | ---------: | -----------------: |');
  for (const count of [...new Set([0, 1, 4, releaseCount])].filter((count) => count <= releaseCount)) {
    const times: number[] = [];
    let files = 0;
    for (let run = 0; run < Number(values.runs); run++) {
      const outDir = mkdtempSync(join(workDir, 'out-'));
      const started = performance.now();
      files = Object.keys((await emitApi(content, outDir, releases.slice(0, count))).files).length;
      times.push(performance.now() - started);
      rmSync(outDir, { recursive: true, force: true });
    }
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
    console.log(`| ${count} | ${files} | ${median.toFixed(0)} | ${((median / files) * 1000).toFixed(1)} |`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
