// When dist/ is stale (npm start and npm run deploy build first, the tests' setup too): the
// reason names the file that changed, so whoever waits for the build sees why.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { staleReason } from '../../src/build/freshness.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

let project: string;
/** The settings now: SITE_ORIGIN and TREEFARM_DATA_DIR unset. */
const UNSET = { siteOrigin: undefined, dataDir: undefined };
afterEach(() => rmSync(project, { recursive: true, force: true }));

/** A project whose files were written at the given times (seconds since the epoch), built with `builtWith`. */
function projectAt(
  files: Record<string, number>,
  builtWith: object = { SITE_ORIGIN: null, TREEFARM_DATA_DIR: null },
): string {
  project = temporaryFolder('freshness-');
  for (const [path, time] of Object.entries(files)) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), path);
    utimesSync(join(project, path), time, time);
  }
  if ('dist/manifest.json' in files) {
    mkdirSync(join(project, 'dist/api'), { recursive: true });
    writeFileSync(join(project, 'dist/api/build-settings.json'), JSON.stringify(builtWith));
  }
  // Folders dated with the oldest, so that only the files' times count.
  for (const path of Object.keys(files))
    for (let folder = dirname(path); folder !== '.'; folder = dirname(folder)) utimesSync(join(project, folder), 1, 1);
  return project;
}

test('no build yet: the build folder is named', () => {
  const dir = projectAt({ 'content/trees/oak-tree.yaml': 100, 'dist/index.html': 100 });
  expect(staleReason(dir, undefined, UNSET)).toBe(`${join(dir, 'dist')} has no build yet`);
});

test('a source newer than the build: the newest file that changed is named', () => {
  const dir = projectAt({
    'content/trees/birch.yaml': 150,
    'content/trees/oak-tree.yaml': 300,
    'content/cutters/axe.yaml': 50,
    'dist/manifest.json': 200,
  });
  expect(staleReason(dir, undefined, UNSET)).toBe('content/trees/oak-tree.yaml changed since the last build');
});

test('a build newer than every source is up to date', () => {
  const dir = projectAt({ 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 });
  expect(staleReason(dir, undefined, UNSET)).toBeUndefined();
});

test("the API contract is a source: the wiki's API page shows it", () => {
  const dir = projectAt({ 'docs/api-contract.md': 300, 'docs/deploy.md': 400, 'dist/manifest.json': 200 });
  expect(staleReason(dir, undefined, UNSET)).toBe('docs/api-contract.md changed since the last build');
});

test('a build made with another SITE_ORIGIN is stale, naming the setting and both values', () => {
  const dir = projectAt({ 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 });
  expect(staleReason(dir, undefined, { ...UNSET, siteOrigin: 'https://wiki.example.org' })).toBe(
    'SITE_ORIGIN is now "https://wiki.example.org"; the last build was made without it',
  );
  const withOrigin = projectAt(
    { 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 },
    { SITE_ORIGIN: 'https://old.example.org', TREEFARM_DATA_DIR: null },
  );
  expect(staleReason(withOrigin, undefined, UNSET)).toBe(
    'SITE_ORIGIN is now unset; the last build was made with "https://old.example.org"',
  );
});

test('a build made with the same SITE_ORIGIN is up to date', () => {
  const dir = projectAt(
    { 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 },
    { SITE_ORIGIN: 'https://wiki.example.org', TREEFARM_DATA_DIR: null },
  );
  expect(staleReason(dir, undefined, { ...UNSET, siteOrigin: 'https://wiki.example.org' })).toBeUndefined();
});

test('a build that recorded no settings (made before they were recorded) is stale', () => {
  const dir = projectAt({ 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 });
  rmSync(join(dir, 'dist/api/build-settings.json'));
  expect(staleReason(dir, undefined, UNSET)).toBe('the last build did not record the settings it was made with');
});

describe('the data folder (TREEFARM_DATA_DIR)', () => {
  let data: string;
  afterEach(() => rmSync(data, { recursive: true, force: true }));
  const OAK = 'content/trees/oak-tree.yaml';
  /** Dates the data folder's one file at `time`, its folders with the oldest. */
  function dateData(time: number): void {
    utimesSync(join(data, OAK), time, time);
    for (const folder of ['content/trees', 'content']) utimesSync(join(data, folder), 1, 1);
  }
  /** A data folder outside the project, its content written at `time`. */
  function dataFolderAt(time: number): string {
    data = temporaryFolder('freshness-data-');
    mkdirSync(join(data, 'content/trees'), { recursive: true });
    writeFileSync(join(data, OAK), 'oak');
    dateData(time);
    return data;
  }

  test('a build made from another data folder is stale, naming the setting and both folders', () => {
    const elsewhere = dataFolderAt(100);
    const dir = projectAt({ 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 });
    expect(staleReason(dir, undefined, { ...UNSET, dataDir: elsewhere })).toBe(
      `TREEFARM_DATA_DIR is now ${JSON.stringify(elsewhere)}; the last build was made without it`,
    );
    const fromElsewhere = projectAt(
      { 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 },
      { SITE_ORIGIN: null, TREEFARM_DATA_DIR: elsewhere },
    );
    expect(staleReason(fromElsewhere, undefined, UNSET)).toBe(
      `TREEFARM_DATA_DIR is now unset; the last build was made with ${JSON.stringify(elsewhere)}`,
    );
  });

  test('a build made from the same data folder is up to date, however the folder is spelled', () => {
    const elsewhere = dataFolderAt(100);
    const dir = projectAt(
      { 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 },
      { SITE_ORIGIN: null, TREEFARM_DATA_DIR: elsewhere },
    );
    expect(staleReason(dir, undefined, { ...UNSET, dataDir: `${elsewhere}/content/..` })).toBeUndefined();
  });

  test('the project itself as the data folder is the same build as the variable unset', () => {
    const dir = projectAt({ 'content/trees/oak-tree.yaml': 100, 'dist/manifest.json': 200 });
    expect(staleReason(dir, undefined, { ...UNSET, dataDir: `${dir}/` })).toBeUndefined();
  });

  test("the data folder's content is a source: a change there is named, the project's own is not read", () => {
    const elsewhere = dataFolderAt(300);
    const dir = projectAt(
      { 'content/trees/birch.yaml': 100, 'dist/manifest.json': 200 },
      { SITE_ORIGIN: null, TREEFARM_DATA_DIR: elsewhere },
    );
    expect(staleReason(dir, undefined, { ...UNSET, dataDir: elsewhere })).toBe(
      `${join(elsewhere, OAK)} changed since the last build`,
    );
    utimesSync(join(dir, 'content/trees/birch.yaml'), 400, 400);
    dateData(100);
    expect(staleReason(dir, undefined, { ...UNSET, dataDir: elsewhere })).toBeUndefined();
  });
});
