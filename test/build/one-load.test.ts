// One build reads and validates its data once, and every part of it takes that one load:
// the API, the wiki's collections and pages, and the offline bundles. The build is fed a
// small fixture project through its loader: a part that read content/ by itself would show
// the project's own records instead. It makes its near-miss index once too, which the
// bundles, the API and the wiki's near-miss files all read, and lets go of it and of the
// downloads before Pagefind, the build's largest moment, indexes the pages.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { type BuildData, loadBuildData } from '../../src/build/build-data.ts';
import type { Latest } from '../../src/contract/bundle-layout.ts';
import { buildSite } from '../../src/build/site.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { wordKeys } from '../../src/contract/suggest.ts';
import { kinds } from '../../src/schema/kinds.ts';
import { minimalProject, minimalRecords, type TempProject } from '../fixtures/minimal-content.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

/** Every key the near-miss index was made for, as often as it was: each key's variants are made once per index. */
const variantsMade = vi.hoisted((): string[] => []);
vi.mock('../../src/contract/suggest.ts', async (importOriginal) => {
  const suggest = await importOriginal<typeof import('../../src/contract/suggest.ts')>();
  return {
    ...suggest,
    indexedVariants: (key: string) => {
      variantsMade.push(key);
      return suggest.indexedVariants(key);
    },
  };
});

/** The build's largest parts, each by a weak reference, and which of them was still held when Pagefind began. */
const parts = vi.hoisted(() => ({ made: new Map<string, WeakRef<object>>(), heldAtIndexing: [] as string[] }));
vi.mock('../../src/build/suggest-index.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/build/suggest-index.ts')>();
  return {
    ...original,
    nearShardsKeepingFirst: (...args: Parameters<typeof original.nearShardsKeepingFirst>) => {
      const index = original.nearShardsKeepingFirst(...args);
      parts.made.set('the near-miss index', new WeakRef(index));
      return index;
    },
  };
});
vi.mock('../../src/build/bundles.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/build/bundles.ts')>();
  return {
    ...original,
    createDownloads: async (...args: Parameters<typeof original.createDownloads>) => {
      const downloads = await original.createDownloads(...args);
      parts.made.set('the downloads', new WeakRef(downloads));
      return downloads;
    },
  };
});
vi.mock('../../src/build/search-index.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/build/search-index.ts')>();
  return {
    ...original,
    writeSearchIndex: (outDir: string) => {
      // V8's own collection, as npm run build's (--expose-gc) before Pagefind: what survives it is held.
      setFlagsFromString('--expose-gc');
      (runInNewContext('gc') as NodeJS.GCFunction)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      parts.heldAtIndexing.push(
        ...[...parts.made].filter(([, part]) => part.deref() !== undefined).map(([name]) => name),
      );
      return original.writeSearchIndex(outDir);
    },
  };
});

const loads: string[] = [];
let fixture: TempProject;
let data: BuildData;
let outDir: string;
/** The checkout's shared Astro content store, as it was before the build and after it. */
const sharedStore = join(projectDir, 'node_modules', '.astro', 'data-store.json');
const storeState = () => statSync(sharedStore, { throwIfNoEntry: false })?.mtimeMs ?? 'absent';
let storeBefore: number | string;
let storeAfter: number | string;

beforeAll(async () => {
  fixture = minimalProject();
  storeBefore = storeState();
  outDir = join(temporaryFolder('treefarm-one-load-'), 'dist');
  await buildSite(outDir, (contentDir) => {
    loads.push(contentDir);
    data = loadBuildData(fixture.contentDir);
    return data;
  });
  storeAfter = storeState();
}, 180_000);
afterAll(() => {
  rmSync(join(outDir, '..'), { recursive: true, force: true });
  fixture.remove();
});

const fixtureSlugs = (kind: string) =>
  Object.keys(minimalRecords)
    .filter((path) => path.startsWith(`${kind}/`))
    .map((path) => path.slice(kind.length + 1).replace(/\.yaml$/, ''))
    .sort();

test("a build loads its data once, from the project's content/", () => {
  expect(loads).toEqual([join(projectDir, 'content')]);
});

test('the API serves the records of that one load', () => {
  const manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8')) as { version: string };
  expect(manifest.version).toBe(data.content.version);
});

test("the wiki's collections hold the records of that one load, and no others", () => {
  const pages = readdirSync(join(outDir, 'trees'), { withFileTypes: true })
    // A record's page is a folder named by its slug; pages of the listing are numbered.
    .filter((entry) => entry.isDirectory() && !/^\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  expect(pages).toEqual(fixtureSlugs('trees'));
});

test('the downloads page names the bundles the build wrote, made from that one load', () => {
  const latest = JSON.parse(readFileSync(join(outDir, 'downloads', 'latest.json'), 'utf8')) as Latest;
  const page = readFileSync(join(outDir, 'downloads', 'index.html'), 'utf8');
  expect(latest.version).toBe(data.content.version);
  expect(latest.bundles).toHaveLength(2);
  for (const bundle of latest.bundles) {
    expect(page).toContain(bundle.name);
    expect(page).toContain(bundle.sha256);
  }
});

test("a build makes its near-miss index once: the bundles, the API and the wiki's near-miss files share it", () => {
  const keysOf = (kind: (typeof kinds)[number]) =>
    new Set(
      data.content.entries[kind.id].flatMap((entry) =>
        'name' in entry.data ? [entry.keys[0] ?? '', ...wordKeys(entry.data.name)] : [],
      ),
    );
  const onceEach = kinds.filter((kind) => kind.named).flatMap((kind) => [...keysOf(kind)]);
  expect(onceEach.length).toBeGreaterThan(0);
  expect([...variantsMade].sort()).toEqual(onceEach.sort());
});

test('a build lets go of its near-miss index and its downloads before Pagefind indexes the pages', () => {
  expect([...parts.made.keys()].sort()).toEqual(['the downloads', 'the near-miss index']);
  expect(parts.heldAtIndexing).toEqual([]);
});

test("a build keeps its content store to itself: the checkout's shared Astro cache is untouched, none is left", () => {
  expect(storeAfter).toBe(storeBefore);
  expect(readdirSync(join(outDir, '..'))).toEqual(['dist']);
});
