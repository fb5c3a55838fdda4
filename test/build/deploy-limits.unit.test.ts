// The build's warning before a Cloudflare deploy would fail: the static assets limits of
// Workers (20,000 files on the Free plan, 100,000 on Paid, 25 MiB per file).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import {
  assetFilesBelow,
  deploySummary,
  ignoredBy,
  planNeeded,
  workerAssetWarnings,
  type AssetFile,
} from '../../src/build/deploy-limits.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const MIB = 1024 * 1024;
const files = (count: number, size = 1000): AssetFile[] =>
  Array.from({ length: count }, (_unused, index) => ({ path: `api/trees/name/t${index}.json`, size }));

test('a build within the Free plan deploys without a warning', () => {
  expect(workerAssetWarnings(files(20_000))).toEqual([]);
});

test('past 20,000 files the build says the Free plan is not enough', () => {
  expect(workerAssetWarnings(files(20_001))).toEqual([
    '20,001 files, more than the 20,000 static assets of the Workers Free plan: deploying needs the Paid plan ' +
      "(up to 100,000) (the R2 mode, BODIES=r2, keeps 20,001 of them, the API's, in R2).",
  ]);
});

test('past 100,000 files the build says a deploy would fail on any plan', () => {
  expect(workerAssetWarnings(files(100_001))).toEqual([
    '100,001 files, more than the 100,000 static assets a Worker version may have on any plan: ' +
      "`wrangler deploy` would fail (the R2 mode, BODIES=r2, keeps 100,001 of them, the API's, in R2).",
  ]);
});

test("the build's summary line weighs the files it is given, without what .assetsignore names", () => {
  const largest = { path: 'downloads/bundle.zip', size: 3 * MIB };
  const ignored = { path: 'api/bodies.pack', size: 30 * MIB };
  expect(deploySummary([...files(20_001), largest, ignored], ['/api/bodies.pack'])).toBe(
    'Worker deploy: 20,002 files to upload (largest 3.0 MiB): fits the Workers Paid plan.',
  );
});

test('the files wrangler reads as configuration are not counted', () => {
  const config = ['_headers', '_redirects', '.assetsignore'].map((path) => ({ path, size: 10 }));
  expect(workerAssetWarnings([...files(20_000), ...config])).toEqual([]);
});

test('the pack, which the build leaves out of the deploy (.assetsignore), is neither counted nor weighed', () => {
  const pack = { path: 'api/bodies.pack', size: 200 * MIB };
  expect(workerAssetWarnings([...files(20_000), pack])).toEqual([]);
});

test('a file over 25 MiB is named with its size', () => {
  const manifest = { path: 'api/trees/index.json', size: 25 * MIB + 1 };
  expect(workerAssetWarnings([...files(10), manifest, { path: 'ok.json', size: 25 * MIB }])).toEqual([
    'api/trees/index.json (25.0 MiB) is larger than the 25.0 MiB a static asset may be: `wrangler deploy` would ' +
      'fail (the R2 mode, BODIES=r2, keeps them in R2).',
  ]);
});

test('many oversized files: the five largest are named, the rest counted', () => {
  const big = Array.from({ length: 7 }, (_unused, index) => ({ path: `big${index}.bin`, size: (30 + index) * MIB }));
  const [warning] = workerAssetWarnings(big);
  expect(warning).toBe(
    'big6.bin (36.0 MiB), big5.bin (35.0 MiB), big4.bin (34.0 MiB), big3.bin (33.0 MiB), big2.bin (32.0 MiB) ' +
      'and 2 more are larger than the 25.0 MiB a static asset may be: `wrangler deploy` would fail.',
  );
});

const wikiPages = (count: number): AssetFile[] =>
  Array.from({ length: count }, (_unused, index) => ({ path: `trees/t${index}/index.html`, size: 1000 }));

test("past a plan by the wiki's own files, the R2 mode is not offered: it keeps only the API in R2", () => {
  expect(workerAssetWarnings([...wikiPages(20_001), ...files(10)])).toEqual([
    '20,011 files, more than the 20,000 static assets of the Workers Free plan: deploying needs the Paid plan ' +
      '(up to 100,000).',
  ]);
});

test('a bundle past 25 MiB goes to R2 in the R2 mode; another large download does not', () => {
  const bundle = { path: 'downloads/treefarm-data-0123456789abcdef.zip', size: 30 * MIB };
  expect(workerAssetWarnings([bundle])[0]).toMatch(/would fail \(the R2 mode, BODIES=r2, keeps them in R2\)\.$/);
  const video = { path: 'downloads/trailer.mp4', size: 30 * MIB };
  expect(workerAssetWarnings([bundle, video])[0]).toMatch(/would fail\.$/);
});

test('the files of a folder are listed with their sizes and paths relative to it', () => {
  const dir = temporaryFolder('treefarm-deploy-limits-');
  try {
    mkdirSync(join(dir, 'api', 'trees'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), 'hello');
    writeFileSync(join(dir, 'api', 'trees', 'index.json'), '[1,2]');
    expect(assetFilesBelow(dir).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'api/trees/index.json', size: 5 },
      { path: 'index.html', size: 5 },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('what .assetsignore names is neither counted nor weighed: a path, a folder, a pattern', () => {
  const big = (path: string) => ({ path, size: 30 * MIB });
  const ignored = ['/api/bodies.pack', 'raw/', '*.map', '# a comment', ''];
  expect(
    workerAssetWarnings([...files(20_000), big('api/bodies.pack'), big('raw/a.bin'), big('x/y.js.map')], ignored),
  ).toEqual([]);
  expect(workerAssetWarnings([...files(20_000), big('rawx/a.bin')], ignored)).toHaveLength(2);
});

test('ignoredBy reads the forms of gitignore that .assetsignore uses', () => {
  const cases: [pattern: string, path: string, ignored: boolean][] = [
    ['api/bodies.pack', 'api/bodies.pack', true],
    ['api/bodies.pack', 'x/api/bodies.pack', false],
    ['bodies.pack', 'api/bodies.pack', true],
    ['/index.html', 'index.html', true],
    ['/index.html', 'docs/index.html', false],
    ['downloads/', 'downloads/a.zip', true],
    ['downloads/', 'downloads', false],
    ['*.zip', 'downloads/a.zip', true],
    ['!keep.zip', 'keep.zip', false],
  ];
  for (const [pattern, path, ignored] of cases)
    expect({ pattern, path, ignored: ignoredBy(pattern, path) }).toEqual({ pattern, path, ignored });
});

test('the plan a deploy needs: Free to 20,000 files, Paid to 100,000, none past it or past 25 MiB a file', () => {
  expect(planNeeded(files(20_000))).toBe('Free');
  expect(planNeeded(files(20_001))).toBe('Paid');
  expect(planNeeded(files(100_000))).toBe('Paid');
  expect(planNeeded(files(100_001))).toBeUndefined();
  expect(planNeeded([...files(10), { path: 'big.zip', size: 25 * MIB + 1 }])).toBeUndefined();
  expect(planNeeded([...files(20_000), { path: 'api/bodies.pack', size: 1 }])).toBe('Free');
});
