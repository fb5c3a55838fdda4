// One build reads and validates content/ once, and makes the offline bundles once: the API,
// the wiki's collections, the downloads page and the bundles all take that one result.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Latest } from '../../src/build/bundles.ts';
import { buildSite } from '../../src/build/site.ts';

const loads: unknown[] = [];
const downloads: unknown[] = [];
const onLoad = (message: unknown) => loads.push(message);
const onDownloads = (message: unknown) => downloads.push(message);
let outDir: string;

beforeAll(async () => {
  outDir = join(mkdtempSync(join(tmpdir(), 'treefarm-one-load-')), 'dist');
  subscribe('treefarm-data:content-load', onLoad);
  subscribe('treefarm-data:downloads-made', onDownloads);
  try {
    await buildSite(outDir);
  } finally {
    unsubscribe('treefarm-data:content-load', onLoad);
    unsubscribe('treefarm-data:downloads-made', onDownloads);
  }
}, 180_000);
afterAll(() => rmSync(join(outDir, '..'), { recursive: true, force: true }));

test('a build reads and validates the content once', () => {
  expect(loads).toHaveLength(1);
});

test('a build makes the offline bundles once', () => {
  expect(downloads).toHaveLength(1);
});

test('the downloads page names the bundles the build wrote', () => {
  const latest = JSON.parse(readFileSync(join(outDir, 'downloads', 'latest.json'), 'utf8')) as Latest;
  const page = readFileSync(join(outDir, 'downloads', 'index.html'), 'utf8');
  expect(latest.bundles).toHaveLength(2);
  for (const bundle of latest.bundles) {
    expect(page).toContain(bundle.name);
    expect(page).toContain(bundle.sha256);
  }
});
