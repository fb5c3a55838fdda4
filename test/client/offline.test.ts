// The offline client: opens both archive formats from bytes or a path, answers the query set
// as the contract says, and refuses a bundle that does not match its manifest.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateRawSync, gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { bundleApiFiles, bundleEntries, createDownloads, packTarGz, packZip } from '../../src/build/bundles.ts';
import type { NamedBytes } from '../../src/build/named-bytes.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import {
  BUNDLE_BODIES,
  bundleFileName,
  bundleIndexPath,
  type BundleIndex,
  csvPath,
  DOWNLOADS_DIR,
  SQLITE_FILE,
  type BundleFormat,
} from '../../src/contract/bundle-layout.ts';
import { readArchive } from '../../src/client/archive.ts';
import { answerText, bundleIndex } from '../../src/client/bundle.ts';
import { levelRoute, listRoute, notFoundRoute, RELEASES_ROUTE, suggestEmptyRoute } from '../../src/contract/paths.ts';
import {
  BundleError,
  NetworkError,
  NotFoundError,
  openBundle,
  publishedSha256,
  TreefarmError,
  type BundleClient,
} from '../../src/client/index.ts';
import type { Manifest } from '../../src/schema/manifest.ts';
import { bundleTarGzWith, forgedEntries, sha256, withManifestRecomputed, zipOf } from '../support/hostile-bundles.ts';
import { outcomesOf, querySet } from '../support/query-set.ts';

let content: Content;
let archives: Record<BundleFormat, Uint8Array>;
beforeAll(async () => {
  content = loadContent(join(projectDir, 'content'));
  const downloads = await createDownloads(content);
  const archive = (format: BundleFormat) =>
    downloads.find((file) => file.name === bundleFileName(content.version, format))?.bytes ?? new Uint8Array();
  archives = { 'tar.gz': archive('tar.gz'), zip: archive('zip') };
});

const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** The current data's routes in the bundle of the real content, each with the text of its body. */
function currentTexts(): Map<string, string> {
  const entries = bundleEntries(content);
  const file = (name: string) => decode(entries.find((entry) => entry.name === name)?.bytes);
  const lines = file(BUNDLE_BODIES).split('\n');
  const { routes } = JSON.parse(file(bundleIndexPath(undefined))) as BundleIndex;
  return new Map(Object.entries(routes).map(([route, line]) => [route, lines[Number(line) - 1] ?? '']));
}

/** A release of a bundle made by a test: its id, data version and the texts of its routes. */
interface TestRelease {
  id: string;
  version: string;
  texts: Record<string, string>;
}

/**
 * The API files of a bundle (bodies and indexes, as the build writes them) whose current data
 * is the real content's with some routes answered by other texts, and with these releases.
 */
function apiWith(texts: Record<string, string>, releases: TestRelease[] = []): Record<string, string> {
  const current = currentTexts();
  for (const [route, text] of Object.entries(texts)) current.set(route, text);
  const routesOf = (texts: Iterable<[string, string]>) => [...texts].map(([route, body]) => ({ route, body }));
  const scopes = [
    { release: undefined, version: content.version, routes: routesOf(current) },
    ...releases.map(({ id, version, texts }) => ({ release: id, version, routes: routesOf(Object.entries(texts)) })),
  ];
  return Object.fromEntries(bundleApiFiles(scopes).map(({ name, bytes }) => [name, decode(bytes)]));
}

/** The line of api/bodies.jsonl that answers a route of the current data, in these API files. */
function lineOf(files: Record<string, string>, route: string): string {
  const line = (JSON.parse(files[bundleIndexPath(undefined)] ?? '{}') as BundleIndex).routes[route];
  if (line === undefined) throw new Error(`${route} is not a route of the bundle`);
  return line;
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
    await expectRefused(flipByte(BUNDLE_BODIES), BUNDLE_BODIES, /does not match the bundle manifest/);
  });

  test('one byte changed in the routing index', async () => {
    const path = bundleIndexPath(undefined);
    await expectRefused(flipByte(path), path, /does not match the bundle manifest/);
  });

  test('one byte changed in a data file', async () => {
    await expectRefused(flipByte('data/cutters.json'), 'data/cutters.json', /does not match the bundle manifest/);
  });

  test.each([SQLITE_FILE, csvPath('trees')])('one byte changed in %s', async (name) => {
    await expectRefused(flipByte(name), name, /does not match the bundle manifest/);
  });

  test('a file the manifest lists is missing', async () => {
    await expectRefused((entries) => entries.filter((entry) => entry.name !== BUNDLE_BODIES), BUNDLE_BODIES, /lacks/);
  });

  test('a file the manifest does not list', async () => {
    const extra = { name: 'api/trees/name/intruder.json', bytes: new TextEncoder().encode('{}') };
    await expectRefused((entries) => [...entries, extra], extra.name, /does not list/);
  });

  test.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'a file named %s, which the manifest does not list, is refused like any other',
    async (name) => {
      const extra = { name, bytes: new TextEncoder().encode('{}') };
      await expectRefused((entries) => [...entries, extra], name, /does not list/);
    },
  );

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

  /** The bundle's entries with `change` made to its manifest, nothing else. */
  const manifestChanged = (change: (manifest: Manifest) => void) => (entries: NamedBytes[]) =>
    entries.map((entry) => {
      if (entry.name !== 'manifest.json') return entry;
      const manifest = JSON.parse(decode(entry.bytes)) as Manifest;
      change(manifest);
      return { name: entry.name, bytes: new TextEncoder().encode(JSON.stringify(manifest)) };
    });

  test('a manifest that gives a file its sha256 but another size', async () => {
    const missized = manifestChanged((manifest) => {
      const listed = manifest.files[BUNDLE_BODIES];
      if (listed) listed.size += 1;
    });
    await expectRefused(missized, BUNDLE_BODIES, /does not match the bundle manifest/);
  });

  test('a manifest listing __proto__, a file the bundle lacks: refused as lacking it', async () => {
    const listsProto = manifestChanged((manifest) => {
      // An own key, as JSON.parse makes it: the manifest's keys are read as own keys.
      Object.defineProperty(manifest.files, '__proto__', {
        value: { sha256: sha256(new Uint8Array()), size: 0 },
        enumerable: true,
      });
    });
    await expectRefused(listsProto, '__proto__', /lacks __proto__, which its manifest lists/);
  });

  test('counts in the manifest that differ from the data', async () => {
    const miscount = manifestChanged((manifest) => {
      manifest.counts.plots = 9;
    });
    await expectRefused(miscount, 'data/plots.json', /holds 8 records; the manifest counts 9/);
  });
});

test('a file named __proto__ that the manifest lists is read as any other', async () => {
  const entries = withManifestRecomputed([...bundleEntries(content), { name: '__proto__', bytes: new Uint8Array(3) }]);
  for (const archive of [await packTarGz(entries), packZip(entries)])
    expect((await openBundle(archive)).version).toBe(content.version);
});

describe('the manifest is checked as early as the format allows', () => {
  const undeflatable = { data: new Uint8Array([0xff, 0xff, 0xff]), size: 5, crc: 0 };
  const zipEntry = ({ name, bytes }: NamedBytes) => ({ name, data: deflateRawSync(bytes), size: bytes.length });

  test('a zip without a manifest is refused before any file is inflated', async () => {
    // An entry no inflater reads: had it been inflated first, the archive would be "damaged".
    const zip = zipOf([{ name: 'data/trees.json', ...undeflatable }]);
    await expect(openBundle(zip)).rejects.toThrow(
      new BundleError('Not a bundle: manifest.json is missing.', 'manifest.json'),
    );
  });

  test('a zip file the manifest does not list, or lists at another size, is refused uninflated', async () => {
    const built = bundleEntries(content).map(zipEntry);
    await expect(openBundle(zipOf([{ name: 'extra.json', ...undeflatable }, ...built]))).rejects.toThrow(
      new BundleError('The bundle holds extra.json, which its manifest does not list.', 'extra.json'),
    );
    const resized = built.map((entry) =>
      entry.name === BUNDLE_BODIES ? { name: BUNDLE_BODIES, ...undeflatable } : entry,
    );
    await expect(openBundle(zipOf(resized))).rejects.toThrow(
      /^api\/bodies\.jsonl does not match the bundle manifest \(5 bytes; expected/,
    );
  });

  test('a tar file after the manifest that it does not list is refused at its header, before its bytes', async () => {
    // The extra file's data is cut off: only its header was read when it was refused.
    const archive = await bundleTarGzWith(content, [{ name: 'zz-extra.bin', text: new Uint8Array(4096) }]);
    const inflated = gunzipSync(archive);
    const cut = gzipSync(inflated.subarray(0, inflated.length - 1024 - 4096 + 100));
    await expect(openBundle(cut)).rejects.toThrow(
      new BundleError('The bundle holds zz-extra.bin, which its manifest does not list.', 'zz-extra.bin'),
    );
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
  test('an API body that is not JSON: a BundleError naming its line when it is read', async () => {
    const files = apiWith({ [levelRoute('trees', 1)]: 'not json' });
    const bundle = await openBundle(consistentlyChanged(files));
    const path = `${BUNDLE_BODIES} line ${lineOf(files, levelRoute('trees', 1))}`;
    await expect(bundle.trees(1)).rejects.toThrow(`${path} is not valid JSON: `);
  });

  test('an API body without data: no records', async () => {
    const files = apiWith({ [levelRoute('trees', 1)]: '{"error":false,"message":"x"}' });
    const bundle = await openBundle(consistentlyChanged(files));
    expect(await bundle.trees(1)).toEqual([]);
  });

  test('a data file that is not a list: refused, saying so', async () => {
    await expect(openBundle(consistentlyChanged({ 'data/plots.json': '{}' }))).rejects.toThrow(
      'data/plots.json holds no list of records; the manifest counts 8.',
    );
  });

  test('a body the index names that the bodies file lacks: a BundleError naming both, when asked', async () => {
    const files = apiWith({});
    const index = JSON.parse(files[bundleIndexPath(undefined)] ?? '{}') as BundleIndex;
    index.routes[suggestEmptyRoute('trees')] = '999999';
    const bundle = await openBundle(
      consistentlyChanged({ ...files, [bundleIndexPath(undefined)]: JSON.stringify(index) }),
    );
    await expect(bundle.suggest('trees', '!!')).rejects.toThrow(
      new BundleError(`The bundle's index names body 999999, which ${BUNDLE_BODIES} lacks.`, BUNDLE_BODIES),
    );
  });

  test('a body number one past the last line: a BundleError, not the text after the final line break', async () => {
    const files = apiWith({});
    const lines = (files[BUNDLE_BODIES] ?? '').split('\n').length - 1;
    const index = JSON.parse(files[bundleIndexPath(undefined)] ?? '{}') as BundleIndex;
    index.routes[suggestEmptyRoute('trees')] = String(lines + 1);
    const bundle = await openBundle(
      consistentlyChanged({ ...files, [bundleIndexPath(undefined)]: JSON.stringify(index) }),
    );
    await expect(bundle.suggest('trees', '!!')).rejects.toThrow(
      new BundleError(`The bundle's index names body ${lines + 1}, which ${BUNDLE_BODIES} lacks.`, BUNDLE_BODIES),
    );
  });

  test.each([
    ['no version', '{"routes":{}}'],
    ['a version that is not text', '{"version":7,"routes":{}}'],
    ['routes that are a list', '{"version":"v","routes":[]}'],
    ['routes that are null', '{"version":"v","routes":null}'],
    ['routes that are text', '{"version":"v","routes":"x"}'],
  ])('an index with %s is not an index: a BundleError naming it when a query needs it', async (_, text) => {
    const bundle = await openBundle(consistentlyChanged({ [bundleIndexPath(undefined)]: text }));
    await expect(bundle.trees()).rejects.toThrow(
      new BundleError(
        `${bundleIndexPath(undefined)} is not the index of a bundle: it needs a version and routes.`,
        bundleIndexPath(undefined),
      ),
    );
  });

  test.each([
    ['a number', 5, '5'],
    ['null (only a release removes a route)', null, 'null'],
  ])(
    "a route of the current data's index to %s names no body: a BundleError naming the route",
    async (_, body, shown) => {
      const files = apiWith({});
      const index = JSON.parse(files[bundleIndexPath(undefined)] ?? '{}') as {
        version: string;
        routes: Record<string, unknown>;
      };
      const route = listRoute('trees');
      index.routes[route] = body;
      const bundle = await openBundle(
        consistentlyChanged({ ...files, [bundleIndexPath(undefined)]: JSON.stringify(index) }),
      );
      const path = bundleIndexPath(undefined);
      await expect(bundle.trees()).rejects.toThrow(
        new BundleError(`${path} routes ${route} to ${shown}, which names no body.`, path),
      );
    },
  );

  test('an index that is not an index: a BundleError naming it when a query needs it', async () => {
    const bundle = await openBundle(consistentlyChanged({ [bundleIndexPath(undefined)]: '{"routes":[]}' }));
    await expect(bundle.trees()).rejects.toThrow(
      `${bundleIndexPath(undefined)} is not the index of a bundle: it needs a version and routes.`,
    );
  });

  test("a bundle without the current data's index: a BundleError naming it when a query needs it", async () => {
    const path = bundleIndexPath(undefined);
    const bundle = await openBundle(consistentlyChanged({ [path]: null }));
    await expect(bundle.trees()).rejects.toThrow(new BundleError(`The bundle lacks ${path}.`, path));
  });

  test('a data file its manifest does not list, and that is not there: refused, naming it', async () => {
    await expect(openBundle(consistentlyChanged({ 'data/plots.json': null }))).rejects.toThrow(
      new BundleError('The bundle lacks data/plots.json.', 'data/plots.json'),
    );
  });
});

test("the bundle's index, asked for a shard of a release it lacks, names that release's index file", async () => {
  const index = bundleIndex(await readArchive(archives.zip));
  const path = bundleIndexPath('1999-01-01');
  expect(() => index.shard('1999-01-01', 0)).toThrow(new BundleError(`The bundle lacks ${path}.`, path));
});

test('each file of a bundle is read once, however many queries ask', async () => {
  const reads = new Map<string, number>();
  class CountedFiles extends Map<string, Uint8Array> {
    override get(path: string): Uint8Array | undefined {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return super.get(path);
    }
  }
  const files = new CountedFiles(await readArchive(archives.zip));
  const ask = (search: string | null, release: string | null = null) =>
    answerText(files, { endpoint: 'trees', suggest: false, search, release });
  for (const search of [null, 'Oak Tree', '69', 'oak', null]) expect(await ask(search)).toBeDefined();
  for (let round = 0; round < 2; round++) expect(await ask(null, '1999-01-01')).toBeUndefined();
  expect(Object.fromEntries(reads)).toEqual({ [bundleIndexPath(undefined)]: 1, [BUNDLE_BODIES]: 1 });
});

describe('a changed file is refused with both digests and sizes', () => {
  test('the sha256 and size found, and those the manifest expects', async () => {
    const name = BUNDLE_BODIES;
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

describe('a bundle with a data release', () => {
  const RELEASE = '2026-12-01';
  const envelopeOf = (data: object[]) => JSON.stringify({ error: false, message: 'found', data });
  const PINNED_OAK = { name: 'Pinned Oak', level: 1 };
  const releases = [{ id: RELEASE, version: '0123456789abcdef' }];
  let withRelease: Uint8Array;
  beforeAll(() => {
    withRelease = consistentlyChanged(
      apiWith({ [RELEASES_ROUTE]: envelopeOf([{ id: RELEASE }]) }, [
        {
          id: RELEASE,
          version: releases[0]?.version ?? '',
          texts: {
            [listRoute('trees')]: envelopeOf([PINNED_OAK]),
            [notFoundRoute('trees')]: JSON.stringify({ error: true, message: 'Pinned: none.' }),
          },
        },
      ]),
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
        apiWith({}, [
          {
            id: RELEASE,
            version: releases[0]?.version ?? '',
            texts: { [listRoute('trees')]: envelopeOf([PINNED_OAK]) },
          },
        ]),
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

  test("a route of a release's index to a number names no body: a BundleError naming the route", async () => {
    const files = apiWith({}, [{ id: RELEASE, version: releases[0]?.version ?? '', texts: {} }]);
    const path = bundleIndexPath(RELEASE);
    const index = JSON.parse(files[path] ?? '{}') as { version: string; routes: Record<string, unknown> };
    index.routes[listRoute('trees')] = 5;
    const bundle = await openBundle(consistentlyChanged({ ...files, [path]: JSON.stringify(index) }, releases), {
      release: RELEASE,
    });
    await expect(bundle.trees()).rejects.toThrow(
      new BundleError(`${path} routes ${listRoute('trees')} to 5, which names no body.`, path),
    );
  });

  test('releases() is the data of the list of releases, or none when it has none', async () => {
    expect(await (await openBundle(withRelease)).releases()).toEqual([{ id: RELEASE }]);
    const noData = consistentlyChanged(apiWith({ [RELEASES_ROUTE]: '{"error":false,"message":"found"}' }));
    expect(await (await openBundle(noData)).releases()).toEqual([]);
  });
});

describe("the archive's published SHA-256: what shows a bundle is the file the site published", () => {
  // A tree renamed in the API's bodies, the manifest inside recomputed: the self-check passes.
  const forged = () =>
    packZip(forgedEntries(content, { [BUNDLE_BODIES]: (text) => text.replaceAll('"Oak Tree"', '"Forged Tree"') }));
  const published = () => sha256(archives.zip);

  test('a forged bundle whose manifest was recomputed passes the self-check: only the digest tells', async () => {
    const bundle = await openBundle(forged());
    expect((await bundle.trees(69))[0]?.name).toBe('Forged Tree');
  });

  test('a forged bundle is refused with the published digest, naming the expected and the actual one', async () => {
    const archive = forged();
    const refusal = await openBundle(archive, { sha256: published() }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BundleError);
    expect((refusal as BundleError).message).toBe(
      `The archive is not the one published: its SHA-256 is ${sha256(archive)}, expected ${published()}. ` +
        'It was changed, damaged, or is another version.',
    );
  });

  test.each(['tar.gz', 'zip'] as const)('the %s bundle opens with its own digest, in either case', async (format) => {
    const digest = sha256(archives[format]);
    for (const given of [digest, digest.toUpperCase()])
      expect((await openBundle(archives[format], { sha256: given })).version).toBe(content.version);
  });

  test.each(['', 'abc', `${'0'.repeat(63)}g`, '0'.repeat(65)])(
    'a sha256 that is not 64 hexadecimal digits (%j) is a TypeError saying so',
    async (given) => {
      await expect(openBundle(archives.zip, { sha256: given })).rejects.toThrow(
        new TypeError(
          'The sha256 option must be a SHA-256 digest, 64 hexadecimal digits; ' +
            `got ${JSON.stringify(given)} (${given.length} characters).`,
        ),
      );
    },
  );

  test('a digest with white space around it is that digest', async () => {
    const digest = sha256(archives.zip);
    expect((await openBundle(archives.zip, { sha256: ` ${digest}\n` })).version).toBe(content.version);
  });

  describe("publishedSha256 reads the site's downloads/latest.json", () => {
    const latestJson = () => readFileSync(join(projectDir, 'dist', DOWNLOADS_DIR, 'latest.json'));
    const site = (answer: () => Response) => {
      const asked: string[] = [];
      const fetch = async (request: RequestInfo | URL) => {
        asked.push(request instanceof Request ? request.url : String(request));
        return answer();
      };
      return { asked, fetch: fetch as typeof globalThis.fetch };
    };

    test('the digest it lists for the bundle of that name, from <site>/downloads/latest.json', async () => {
      const { asked, fetch } = site(() => new Response(latestJson()));
      const name = bundleFileName(content.version, 'zip');
      const built = readFileSync(join(projectDir, 'dist', DOWNLOADS_DIR, name));
      expect(await publishedSha256('https://trees.example/wiki', name, { fetch })).toBe(sha256(built));
      expect(asked).toEqual(['https://trees.example/wiki/downloads/latest.json']);
    });

    test('a name it does not list: a TreefarmError naming those it lists', async () => {
      const { fetch } = site(() => new Response(latestJson()));
      await expect(publishedSha256('https://trees.example', 'renamed.zip', { fetch })).rejects.toThrow(
        'https://trees.example/downloads/latest.json lists no bundle named renamed.zip (it lists ' +
          `${bundleFileName(content.version, 'tar.gz')}, ${bundleFileName(content.version, 'zip')}): ` +
          'give its SHA-256 from where you downloaded it.',
      );
    });

    test('a list that is no list, or of entries not bundles: a TreefarmError naming what it lists', async () => {
      const { fetch: noList } = site(() => Response.json({ bundles: 'x.zip' }));
      await expect(publishedSha256('https://trees.example', 'x.zip', { fetch: noList })).rejects.toThrow(
        new TreefarmError(
          'https://trees.example/downloads/latest.json lists no bundle named x.zip (it lists none): ' +
            'give its SHA-256 from where you downloaded it.',
        ),
      );
      const odd = [null, 'y.zip', { sha256: '0'.repeat(64) }, { name: 'b.zip', sha256: '1'.repeat(64) }];
      const { fetch: oddList } = site(() => Response.json({ bundles: odd }));
      await expect(publishedSha256('https://trees.example', 'x.zip', { fetch: oddList })).rejects.toThrow(
        new TreefarmError(
          'https://trees.example/downloads/latest.json lists no bundle named x.zip (it lists b.zip): ' +
            'give its SHA-256 from where you downloaded it.',
        ),
      );
      expect(await publishedSha256('https://trees.example', 'b.zip', { fetch: oddList })).toBe('1'.repeat(64));
    });

    test('a listed sha256 that is no digest: a TreefarmError naming the address and the bundle', async () => {
      const { fetch } = site(() => Response.json({ bundles: [{ name: 'x.zip', sha256: 'abc' }] }));
      await expect(publishedSha256('https://trees.example', 'x.zip', { fetch })).rejects.toThrow(
        new TreefarmError(
          'The sha256 https://trees.example/downloads/latest.json gives x.zip must be a SHA-256 digest, ' +
            '64 hexadecimal digits; got "abc" (3 characters).',
        ),
      );
    });

    test('the signal given goes with the request; no answer is a NetworkError caused by the failure', async () => {
      const signals: AbortSignal[] = [];
      const failure = new TypeError('fetch failed');
      const down = (async (request: Request) => {
        signals.push(request.signal);
        throw failure;
      }) as typeof globalThis.fetch;
      const error = await publishedSha256('https://trees.example', 'x.zip', {
        fetch: down,
        signal: AbortSignal.abort(),
      }).catch((thrown: unknown) => thrown);
      expect(signals.map((signal) => signal.aborted)).toEqual([true]);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).cause).toBe(failure);
    });

    test('an answer that is not a list of bundles, or no answer: an error naming the address', async () => {
      const { fetch: missing } = site(() => new Response('Not found', { status: 404 }));
      await expect(publishedSha256('https://trees.example', 'x.zip', { fetch: missing })).rejects.toThrow(
        'https://trees.example/downloads/latest.json answered 404 with no list of bundles.',
      );
      const down = (async () => {
        throw new TypeError('fetch failed');
      }) as typeof globalThis.fetch;
      await expect(publishedSha256('https://trees.example', 'x.zip', { fetch: down })).rejects.toThrow(
        new NetworkError(
          'No answer from https://trees.example/downloads/latest.json: fetch failed',
          new Request('https://x'),
        ),
      );
    });
  });
});

describe('a bundle that cannot be read', () => {
  test.each([
    ['a missing file', join(projectDir, 'no-such-bundle.zip'), 'no such file'],
    ['a folder', projectDir, 'a folder, not a file'],
  ])('%s is a BundleError naming the file', async (_case, path, reason) => {
    const refusal = await openBundle(path).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BundleError);
    expect({ file: (refusal as BundleError).file, message: (refusal as BundleError).message }).toEqual({
      file: path,
      message: `Cannot read the bundle ${path}: ${reason}`,
    });
  });
});
