// The offline client: opens both archive formats from bytes or a path, answers the query set
// as the contract says, and refuses a bundle that does not match its manifest.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  bundleEntries,
  createDownloads,
  DOWNLOADS_DIR,
  packTarGz,
  packZip,
  type NamedBytes,
} from '../../src/build/bundles.ts';
import { projectDir } from '../../src/build/site.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import { bundleFileName, csvPath, SQLITE_FILE, type BundleFormat } from '../../src/contract/bundle-layout.ts';
import { readArchive } from '../../src/client/archive.ts';
import { answerText } from '../../src/client/bundle.ts';
import { indexFiles } from '../../src/build/route-index.ts';
import {
  bundledBodyPath,
  levelRoute,
  listRoute,
  notFoundRoute,
  RELEASES_ROUTE,
  rootPath,
  shardPath,
  suggestEmptyRoute,
} from '../../src/contract/paths.ts';
import { checkRoot, routeIn, shardOf } from '../../src/contract/route-index.ts';
import { BundleError, NotFoundError, openBundle, TreefarmError, type BundleClient } from '../../src/client/index.ts';
import type { Manifest } from '../../src/schema/manifest.ts';
import { outcomesOf, querySet } from './query-set.ts';

let content: Content;
let archives: Record<BundleFormat, Uint8Array>;
beforeAll(async () => {
  content = loadContent(join(projectDir, 'content'));
  const downloads = await createDownloads(content);
  const archive = (format: BundleFormat) =>
    downloads.find((file) => file.name === bundleFileName(content.version, format))?.bytes ?? new Uint8Array();
  archives = { 'tar.gz': archive('tar.gz'), zip: archive('zip') };
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The path of the body a route of the current data names, in a bundle's entries. */
function bodyPathIn(entries: readonly NamedBytes[], route: string): string {
  const text = (name: string) => new TextDecoder().decode(entries.find((entry) => entry.name === name)?.bytes);
  const root = checkRoot(JSON.parse(text(rootPath(undefined))), rootPath(undefined));
  const body = routeIn(JSON.parse(text(shardPath(undefined, shardOf(route, root)))), route);
  if (body === undefined) throw new Error(`${route} is not a route of the bundle`);
  return bundledBodyPath(body);
}

/** The index and body files of a scope answering these routes with these texts. */
function scopeFiles(
  release: string | undefined,
  version: string,
  texts: Record<string, string>,
): Record<string, string> {
  const files: Record<string, string> = {};
  const routes = new Map<string, string>();
  for (const [route, text] of Object.entries(texts)) {
    const body = sha256(new TextEncoder().encode(text));
    routes.set(route, body);
    files[bundledBodyPath(body)] = text;
  }
  for (const file of indexFiles(release, version, routes)) files[file.path] = file.text;
  return files;
}

const counts = () =>
  Object.fromEntries(Object.entries(content.entries).map(([kind, entries]) => [kind, entries.length]));

describe.each(['tar.gz', 'zip'] as const)('a %s bundle', (format) => {
  test('opens from bytes and from an ArrayBuffer, with its version and counts', async () => {
    const bytes = archives[format];
    for (const source of [bytes, bytes.slice().buffer]) {
      const bundle = await openBundle(source);
      expect({ version: bundle.version, counts: bundle.counts }).toEqual({
        version: content.version,
        counts: counts(),
      });
    }
  });

  test('opens from the path of the file in dist/downloads/', async () => {
    const bundle = await openBundle(join(projectDir, 'dist', DOWNLOADS_DIR, bundleFileName(content.version, format)));
    expect(await bundle.cutters('Fist')).toEqual([
      content.entries.cutters.find((entry) => entry.slug === 'fist')?.record,
    ]);
  });

  test('answers every query of the set per the contract: names, aliases, levels, whole lists, not found', async () => {
    const queries = querySet(content);
    const outcomes = await outcomesOf(await openBundle(archives[format]), queries);
    outcomes.forEach((outcome, index) => {
      const { kind, search, expected } = queries[index] ?? {};
      expect({ kind, search, outcome }).toEqual({ kind, search, outcome: expected });
    });
  });
});

describe('suggestions offline', () => {
  test('suggest answers from the bundle: prefixes, typos, levels, [] for nothing', async () => {
    const bundle = await openBundle(archives.zip);
    expect((await bundle.suggest('trees', 'oak')).map((entry) => 'name' in entry && entry.name)).toEqual([
      'Oak Tree',
      'Chestnut Oak',
      'Northern Red Oak',
      'Scarlet Oak',
      'Silky Oak',
      'White Oak',
    ]);
    expect(await bundle.suggest('trees', 'sequioa')).toEqual([{ name: 'Giant Sequoia', level: 51 }]);
    expect(await bundle.suggest('cutters', 'bread')).toEqual([{ name: 'Knife', level: 2 }]);
    expect(await bundle.suggest('plots', '5')).toEqual([{ level: 5 }]);
    expect(await bundle.suggest('trees', 'zzzzzz')).toEqual([]);
    expect(await bundle.suggest('gifts')).toHaveLength(3);
  });

  test("a near miss offline is the API's body byte for byte, its message naming the kind's noun", async () => {
    const files = await readArchive(archives.zip);
    const answer = await answerText(files, { endpoint: 'trees', suggest: true, search: 'sequioa', release: null });
    expect(answer?.text).toBe(
      '{"error":false,"message":"Suggestions for the requested tree.","data":[{"name":"Giant Sequoia","level":51}]}',
    );
  });

  test('with release, suggestions come from that release; an unknown release is NotFoundError', async () => {
    // The build's bundle holds the releases of releases/.
    const built = join(projectDir, 'dist', DOWNLOADS_DIR, bundleFileName(content.version, 'zip'));
    const bundle = await openBundle(built, { release: '2026-11-22' });
    expect(await bundle.suggest('trees', 'sequioa')).toEqual([{ name: 'Giant Sequoia', level: 51 }]);
    const unknown = await openBundle(built, { release: '1999-01-01' });
    const error = await unknown.suggest('trees', 'oak').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      message: 'The requested release could not be found. The releases are listed at /api/releases.',
    });
  });
});

test('the records are typed by kind', async () => {
  const bundle: BundleClient = await openBundle(archives['tar.gz']);
  const [oak] = await bundle.trees('Oak Tree');
  const growthTime: number | undefined = oak?.growthTime;
  const efficiency: [number, number] | undefined = (await bundle.cutters(1))[0]?.efficiency;
  expect({ growthTime: typeof growthTime, efficiency: efficiency?.length }).toEqual({
    growthTime: 'number',
    efficiency: 2,
  });
});

describe('a bundle that does not match its manifest is refused, naming the file', () => {
  /** The bundle's entries with one changed, repacked in both formats by the build's packers. */
  async function repacked(change: (entries: NamedBytes[]) => NamedBytes[]): Promise<Uint8Array[]> {
    const entries = change(bundleEntries(content));
    return [await packTarGz(entries), packZip(entries)];
  }
  const flipByte = (name: string) => (entries: NamedBytes[]) =>
    entries.map((entry) => {
      if (entry.name !== name) return entry;
      const bytes = entry.bytes.slice();
      bytes[10] = (bytes[10] ?? 0) ^ 0x01;
      return { name, bytes };
    });

  async function expectRefused(
    change: (entries: NamedBytes[]) => NamedBytes[],
    file: string,
    words: RegExp,
  ): Promise<void> {
    for (const archive of await repacked(change)) {
      const refusal = await openBundle(archive).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(BundleError);
      expect(refusal).toBeInstanceOf(TreefarmError);
      expect({ file: (refusal as BundleError).file, message: (refusal as BundleError).message }).toEqual({
        file,
        message: expect.stringMatching(words) as unknown as string,
      });
      expect((refusal as BundleError).message).toContain(file);
    }
  }

  test('an unchanged repack opens (the control for the cases below)', async () => {
    for (const archive of await repacked((entries) => entries))
      expect((await openBundle(archive)).version).toBe(content.version);
  });

  test('one byte changed in a body of the api', async () => {
    const path = bodyPathIn(bundleEntries(content), listRoute('trees'));
    await expectRefused(flipByte(path), path, /does not match the bundle manifest/);
  });

  test('one byte changed in a file of the routing index', async () => {
    const path = shardPath(undefined, 0);
    await expectRefused(flipByte(path), path, /does not match the bundle manifest/);
  });

  test('one byte changed in a data file', async () => {
    await expectRefused(flipByte('data/cutters.json'), 'data/cutters.json', /does not match the bundle manifest/);
  });

  test.each([SQLITE_FILE, csvPath('trees')])('one byte changed in %s', async (name) => {
    await expectRefused(flipByte(name), name, /does not match the bundle manifest/);
  });

  test('a file the manifest lists is missing', async () => {
    const path = bodyPathIn(bundleEntries(content), levelRoute('gifts', 1));
    await expectRefused((entries) => entries.filter((entry) => entry.name !== path), path, /lacks/);
  });

  test('a file the manifest does not list', async () => {
    const extra = { name: 'api/trees/name/intruder.json', bytes: new TextEncoder().encode('{}') };
    await expectRefused((entries) => [...entries, extra], extra.name, /does not list/);
  });

  test('no manifest', async () => {
    await expectRefused(
      (entries) => entries.filter((entry) => entry.name !== 'manifest.json'),
      'manifest.json',
      /missing/,
    );
  });

  test('a manifest.json that is not a bundle manifest', async () => {
    const notAManifest = (entries: NamedBytes[]) =>
      entries.map((entry) =>
        entry.name === 'manifest.json' ? { name: entry.name, bytes: new TextEncoder().encode('{"version":1}') } : entry,
      );
    await expectRefused(notAManifest, 'manifest.json', /^manifest\.json is not a bundle manifest: ./);
  });

  test('counts in the manifest that differ from the data', async () => {
    const miscount = (entries: NamedBytes[]) =>
      entries.map((entry) => {
        if (entry.name !== 'manifest.json') return entry;
        const manifest = JSON.parse(new TextDecoder().decode(entry.bytes)) as { counts: Record<string, number> };
        manifest.counts['plots'] = 9;
        return { name: entry.name, bytes: new TextEncoder().encode(JSON.stringify(manifest)) };
      });
    await expectRefused(miscount, 'data/plots.json', /holds 8 records; the manifest counts 9/);
  });
});

test('a file that is not an archive, or a damaged archive, is refused', async () => {
  const readme = readFileSync(join(projectDir, 'package.json'));
  await expect(openBundle(new Uint8Array(readme))).rejects.toThrow(/neither a \.tar\.gz nor a \.zip/);
  for (const archive of Object.values(archives)) {
    await expect(openBundle(archive.subarray(0, archive.length / 2))).rejects.toBeInstanceOf(BundleError);
  }
});

/**
 * The bundle with files replaced or added (a text) or removed (null), its manifest rewritten to
 * match, with `releases` there when given; as a zip.
 */
function consistentlyChanged(changes: Record<string, string | null>, releases?: Manifest['releases']): Uint8Array {
  const encoded = (text: string) => new TextEncoder().encode(text);
  const added = Object.entries(changes).flatMap(([name, text]) =>
    text === null ? [] : [{ name, bytes: encoded(text) }],
  );
  const entries = [...bundleEntries(content).filter((entry) => !(entry.name in changes)), ...added];
  return packZip(
    entries.map((entry) => {
      if (entry.name !== 'manifest.json') return entry;
      const manifest = JSON.parse(new TextDecoder().decode(entry.bytes)) as Manifest;
      for (const name of Object.keys(changes)) delete manifest.files[name];
      for (const { name, bytes } of added)
        manifest.files[name] = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
      if (releases) manifest.releases = releases;
      return { name: entry.name, bytes: encoded(JSON.stringify(manifest)) };
    }),
  );
}

describe('a bundle whose manifest matches its files but whose files are not what the API serves', () => {
  const levelOne = () => bodyPathIn(bundleEntries(content), levelRoute('trees', 1));

  test('an API body that is not JSON: a BundleError naming it when it is read', async () => {
    const bundle = await openBundle(consistentlyChanged({ [levelOne()]: 'not json' }));
    await expect(bundle.trees(1)).rejects.toThrow(`${levelOne()} is not valid JSON: `);
  });

  test('an API body without data: no records', async () => {
    const bundle = await openBundle(consistentlyChanged({ [levelOne()]: '{"error":false,"message":"x"}' }));
    expect(await bundle.trees(1)).toEqual([]);
  });

  test('a data file that is not a list: refused, saying so', async () => {
    await expect(openBundle(consistentlyChanged({ 'data/plots.json': '{}' }))).rejects.toThrow(
      'data/plots.json holds no list of records; the manifest counts 8.',
    );
  });

  test('a suggestion body the bundle lacks: a BundleError naming it when a query needs it', async () => {
    const none = bodyPathIn(bundleEntries(content), suggestEmptyRoute('trees'));
    const bundle = await openBundle(consistentlyChanged({ [none]: null }));
    await expect(bundle.suggest('trees', '!!')).rejects.toThrow(new BundleError(`The bundle lacks ${none}.`, none));
  });

  test('a data file its manifest does not list, and that is not there: refused, naming it', async () => {
    await expect(openBundle(consistentlyChanged({ 'data/plots.json': null }))).rejects.toThrow(
      new BundleError('The bundle lacks data/plots.json.', 'data/plots.json'),
    );
  });
});

describe('a changed file is refused with both digests and sizes', () => {
  test('the sha256 and size found, and those the manifest expects', async () => {
    const name = bodyPathIn(bundleEntries(content), listRoute('trees'));
    const original = bundleEntries(content).find((entry) => entry.name === name)?.bytes ?? new Uint8Array();
    const changed = original.slice();
    changed[10] = (changed[10] ?? 0) ^ 0x01;
    const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    const entries = bundleEntries(content).map((entry) => (entry.name === name ? { name, bytes: changed } : entry));
    await expect(openBundle(packZip(entries))).rejects.toThrow(
      `${name} does not match the bundle manifest (sha256 ${digest(changed)}, ${changed.length} bytes; ` +
        `expected ${digest(original)}, ${original.length} bytes): the bundle was changed or damaged.`,
    );
  });
});

/** The current data's index files with some routes answered by other texts (their bodies added). */
function currentWith(texts: Record<string, string>): Record<string, string> {
  const entries = bundleEntries(content);
  const text = (name: string) => new TextDecoder().decode(entries.find((entry) => entry.name === name)?.bytes);
  const root = JSON.parse(text(rootPath(undefined))) as { version: string; shards: number };
  const routes = new Map<string, string>();
  for (let n = 0; n < root.shards; n++)
    for (const [route, body] of Object.entries(JSON.parse(text(shardPath(undefined, n))) as Record<string, string>))
      routes.set(route, body);
  const files: Record<string, string> = {};
  for (const [route, value] of Object.entries(texts)) {
    const body = sha256(new TextEncoder().encode(value));
    routes.set(route, body);
    files[bundledBodyPath(body)] = value;
  }
  for (const file of indexFiles(undefined, root.version, routes)) files[file.path] = file.text;
  return files;
}

describe('a bundle with a data release', () => {
  const RELEASE = '2026-12-01';
  const envelopeOf = (data: object[]) => JSON.stringify({ error: false, message: 'found', data });
  const PINNED_OAK = { name: 'Pinned Oak', level: 1 };
  const releases = [{ id: RELEASE, version: '0123456789abcdef' }];
  let withRelease: Uint8Array;
  beforeAll(() => {
    withRelease = consistentlyChanged(
      {
        ...currentWith({ [RELEASES_ROUTE]: envelopeOf([{ id: RELEASE }]) }),
        ...scopeFiles(RELEASE, releases[0]?.version ?? '', {
          [listRoute('trees')]: envelopeOf([PINNED_OAK]),
          [notFoundRoute('trees')]: JSON.stringify({ error: true, message: 'Pinned: none.' }),
        }),
      },
      releases,
    );
  });

  test('release=<id> answers from that release, its not-found included; without it, the current data', async () => {
    const pinned = await openBundle(withRelease, { release: RELEASE });
    expect(await pinned.trees()).toEqual([PINNED_OAK]);
    const tooLong = 'x'.repeat(101);
    const error = await pinned.trees(tooLong).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ message: 'Pinned: none.', kind: 'trees', search: tooLong });
    const current = await openBundle(withRelease);
    expect((await current.trees()).map((tree) => tree.name)).toContain('Oak Tree');
  });

  test('a release pinned among several is found wherever it is in the list', async () => {
    const newer = { id: '2026-12-09', version: 'fedcba9876543210' };
    const bundle = await openBundle(
      consistentlyChanged(
        scopeFiles(RELEASE, releases[0]?.version ?? '', { [listRoute('trees')]: envelopeOf([PINNED_OAK]) }),
        [newer, ...releases],
      ),
      { release: RELEASE },
    );
    expect(await bundle.trees()).toEqual([PINNED_OAK]);
  });

  test('a release the bundle does not hold: not found, with the message of the contract', async () => {
    const unknown = await openBundle(withRelease, { release: '2026-12-02' });
    const error = await unknown.trees('oak').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      message: 'The requested release could not be found. The releases are listed at /api/releases.',
      kind: 'trees',
      search: 'oak',
    });
  });

  test('releases() is the data of the list of releases, or none when it has none', async () => {
    expect(await (await openBundle(withRelease)).releases()).toEqual([{ id: RELEASE }]);
    const noData = consistentlyChanged(currentWith({ [RELEASES_ROUTE]: '{"error":false,"message":"found"}' }));
    expect(await (await openBundle(noData)).releases()).toEqual([]);
  });
});
