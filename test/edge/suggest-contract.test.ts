// The contract's section "Suggestions (autocomplete)", one test per rule, against both
// runtimes (the Node server and the Worker in workerd), the online client and the offline
// client over a bundle.
// Expected answers are written by hand from the content, or come from the brute-force
// reference in test/support/suggest-reference.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent, type Content } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { createClient, openBundle, type BundleClient } from '../../src/client/index.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { kinds, type KindId } from '../../src/schema/kinds.ts';
import { readManifest } from '../../src/server/body-store.ts';
import { distDir, contractRuntimeNames, startRuntime, type Runtime } from '../support/runtimes.ts';
import { referenceSuggestions, type ReferenceSuggestion } from '../support/suggest-reference.ts';

const TOKEN = 'suggest-contract-token';
const content: Content = loadContent(join(projectDir, 'content'));
const manifest = await readManifest(distDir);
const version = manifest.version;
/** The tree names of the first release, read from its file in the repository. */
const releaseNames = (
  JSON.parse(readFileSync(join(projectDir, 'releases', `${manifest.releases.at(-1)?.id}.json`), 'utf8')) as {
    records: { trees: { data: { name: string } }[] };
  }
).records.trees.map((tree) => tree.data.name);

/** Names of a suggestion list, with levels: "Oak Tree 69". */
const named = (suggestions: readonly ReferenceSuggestion[]) =>
  suggestions.map((entry) => ('name' in entry ? `${entry.name} ${entry.level}` : `${entry.level}`));

/** How one target answers: the list of a suggestion query (`search` undefined: no parameter). */
interface Target {
  name: string;
  suggest(kind: KindId, search?: string): Promise<ReferenceSuggestion[]>;
}

const targets: { name: string; open(): Promise<Target & { close(): Promise<void> }> }[] = [
  ...contractRuntimeNames.map((name) => ({
    name,
    async open() {
      const runtime = await startRuntime(name, { tokens: [TOKEN] });
      return {
        name,
        close: () => runtime.close(),
        async suggest(kind: KindId, search?: string) {
          const query = search === undefined ? '' : `?search=${encodeURIComponent(search)}`;
          const response = await fetch(`${runtime.url}/api/${kind}/suggest${query}`, {
            headers: { Authorization: `Bearer ${TOKEN}` },
          });
          expect(response.status).toBe(200);
          return ((await response.json()) as { data: ReferenceSuggestion[] }).data;
        },
      };
    },
  })),
  {
    name: 'online client',
    async open() {
      const runtime = await startRuntime('node', { tokens: [TOKEN] });
      const client = createClient({ baseUrl: runtime.url, token: TOKEN });
      return {
        name: 'online client',
        close: () => runtime.close(),
        suggest: (kind, search) => client.suggest(kind, search),
      };
    },
  },
  {
    name: 'offline',
    async open() {
      const bundle: BundleClient = await openBundle(
        join(distDir, 'downloads', bundleFileName(content.version, 'tar.gz')),
      );
      return { name: 'offline', close: async () => {}, suggest: (kind, search) => bundle.suggest(kind, search) };
    },
  },
];

describe.each(targets)('suggestions, $name', (opener) => {
  let target: Target & { close(): Promise<void> };
  beforeAll(async () => {
    target = await opener.open();
  });
  afterAll(() => target?.close());
  const suggest = (kind: KindId, search?: string) => target.suggest(kind, search);

  test('rule 1: no search, an empty one, null or undefined give the first 25 records in list order', async () => {
    const first25 = named(referenceSuggestions(content.entries.trees, null)).slice(0, 25);
    expect(first25[0]).toBe('African Juniper 1');
    expect(first25[24]).toBe('Bonsai Tree 25');
    for (const search of [undefined, '', '   ', 'null', 'NULL', 'undefined', 'UnDefined']) {
      expect({ search, names: named(await suggest('trees', search)) }).toEqual({ search, names: first25 });
    }
    expect(named(await suggest('gifts'))).toEqual(['small 1', 'medium 1', 'large 2']);
  });

  test('rule 2: digits give the records whose level starts with them, in list order', async () => {
    expect(named(await suggest('trees', '6'))).toEqual([
      'American Hornbeam 6',
      'Lemon Tree 60',
      'Lodgepole Pine 61',
      'Longleaf Pine 62',
      'Magnolia Tree 63',
      'Mango Tree 64',
      'Markhamia 65',
      'Medang 66',
      'Noble Fir 67',
      'Northern Red Oak 68',
      'Oak Tree 69',
    ]);
    expect(named(await suggest('gifts', ' 1 '))).toEqual(['small 1', 'medium 1']);
    expect(named(await suggest('trees', '107'))).toEqual([]);
  });

  test('rule 2: a leading zero is part of the prefix, so 05 and 0 match no level', async () => {
    expect(await suggest('trees', '05')).toEqual([]);
    expect(await suggest('trees', '0')).toEqual([]);
    expect(await suggest('trees', '99999999999999999999')).toEqual([]);
  });

  test('rule 3: a text with an empty key gives []', async () => {
    expect(await suggest('trees', '!!!')).toEqual([]);
    expect(await suggest('trees', '\u0301')).toEqual([]);
  });

  test('rule 3a: a name or alias key equal to the key comes first', async () => {
    expect(named(await suggest('trees', 'Oak Tree'))).toEqual(['Oak Tree 69']);
    expect(named(await suggest('trees', 'oak-tree'))).toEqual(['Oak Tree 69']);
    expect(named(await suggest('vehicles', 'Bike'))).toEqual(['Cargo Bike 2']);
  });

  test('rule 3b then 3c: name prefixes before word prefixes, each in list order, a record once', async () => {
    // Oak Tree starts with "oak" (b); the other oaks have a word that does (c); Oak Tree is not listed twice.
    expect(named(await suggest('trees', 'oak'))).toEqual([
      'Oak Tree 69',
      'Chestnut Oak 35',
      'Northern Red Oak 68',
      'Scarlet Oak 88',
      'Silky Oak 91',
      'White Oak 104',
    ]);
    expect(named(await suggest('vehicles', 'car'))).toEqual(['Cargo Bike 2', 'Carriage 4', 'Golf Cart 3']);
  });

  test('rule 3c: a word of the name that starts with the key finds the record (red: Northern Red Oak)', async () => {
    expect(named(await suggest('trees', 'sequoia'))).toEqual(['Giant Sequoia 51']);
    expect(named(await suggest('trees', 'red'))).toEqual([
      'Red Maple Tree 82',
      'Red Pine 83',
      'Red Spruce 84',
      'California Redwood 28',
      'Eastern Red Cedar 44',
      'Northern Red Oak 68',
    ]);
  });

  test('rule 3d: an alias that starts with the key finds the record, shown by its current name', async () => {
    expect(await suggest('cutters', 'bread')).toEqual([{ name: 'Knife', level: 2 }]);
  });

  test('rule 3e: with a to d empty, a key of 4 to 7 characters finds words and names 1 edit away', async () => {
    expect(named(await suggest('trees', 'sequioa'))).toEqual(['Giant Sequoia 51']);
    expect(named(await suggest('cutters', 'kinfe'))).toEqual(['Knife 2']);
    expect(named(await suggest('trees', 'whte oak'))).toEqual(['White Oak 104']);
  });

  test('rule 3e: equally near records come in list order', async () => {
    expect(named(await suggest('trees', 'bitch'))).toEqual([
      'Birch Tree 17',
      'Black Birch 20',
      'Gray Birch 54',
      'Paper Birch 72',
      'Pitch Pine 78',
      'River Birch 85',
      'Yellow Birch 106',
    ]);
  });

  test('rule 3e: a key of 8 or more characters finds names 2 edits away; 7 characters do not', async () => {
    expect(named(await suggest('trees', 'giant sekuoya'))).toEqual(['Giant Sequoia 51']);
    expect(await suggest('trees', 'sekuoya')).toEqual([]);
  });

  test('rule 3e: nearer records come first', async () => {
    // "whiteoas" is 1 edit from White Oak, 2 from White Ash, which comes first in list order.
    expect(named(await suggest('trees', 'white oas'))).toEqual(['White Oak 104', 'White Ash 102']);
  });

  test('rule 3e: near misses only when a to d are empty (pine does not list Pin Cherry)', async () => {
    expect(named(await suggest('trees', 'pine'))).not.toContain('Pin Cherry 76');
    // "pinx" starts no key: 1 edit from the word "pin" of Pin Cherry and from every "pine".
    expect(named(await suggest('trees', 'pinx'))).toContain('Pin Cherry 76');
  });

  test('rule 3e: keys under 4 characters have no near misses', async () => {
    expect(await suggest('trees', 'oax')).toEqual([]);
  });

  test('at most 25 entries', async () => {
    // 26 trees have a word starting with "t" (every "... Tree", Tulip Tree, ...).
    const list = await suggest('trees', 't');
    expect(list).toHaveLength(25);
    expect(list).toEqual(referenceSuggestions(content.entries.trees, 't'));
  });

  test('entries are {name, level} in that order, plots {level} alone', async () => {
    const [oak] = await suggest('trees', 'Oak Tree');
    expect(Object.keys(oak ?? {})).toEqual(['name', 'level']);
    expect(await suggest('plots', '5')).toEqual([{ level: 5 }]);
    expect(await suggest('plots', 'oak')).toEqual([]);
  });

  test('rule 4: a value over 100 characters gives []; 100 characters are still read', async () => {
    expect(named(await suggest('trees', `oak${'-'.repeat(97)}`))).toContain('Oak Tree 69');
    expect(await suggest('trees', `oak${'-'.repeat(98)}`)).toEqual([]);
  });

  test('200 with [] when nothing matches', async () => {
    expect(await suggest('trees', 'zzzzzz')).toEqual([]);
  });

  test('every kind answers; each answer equals the brute-force reference for a set of queries', async () => {
    const searches = ['', 'a', 'ch', 'tr', 'pine', 'oaks', 'trian', 'cellr', 'warehose', 'gaint sequia', '1', '4'];
    for (const kind of kinds) {
      for (const search of searches) {
        expect({ kind: kind.id, search, list: await suggest(kind.id, search) }).toEqual({
          kind: kind.id,
          search,
          list: referenceSuggestions(content.entries[kind.id], search),
        });
      }
    }
  });
});

describe.each(contractRuntimeNames)('suggestions over HTTP, %s runtime', (runtimeName) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(runtimeName, { tokens: [TOKEN] });
  });
  afterAll(() => runtime?.close());
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${runtime.url}${path}`, { method, headers: { Authorization: `Bearer ${TOKEN}`, ...headers } });
  const dataOf = async (response: Response) => ((await response.json()) as { data: unknown[] }).data;

  test('the message is "Suggestions for the requested {noun}."', async () => {
    for (const kind of kinds) {
      const body = (await (await get(`/api/${kind.id}/suggest?search=zzzz`)).json()) as object;
      expect(body).toEqual({ error: false, message: `Suggestions for the requested ${kind.noun}.`, data: [] });
      expect(Object.keys(body)).toEqual(['error', 'message', 'data']);
    }
  });

  test('a trailing slash is the same endpoint', async () => {
    const plain = await (await get('/api/trees/suggest?search=oak')).text();
    expect(await (await get('/api/trees/suggest/?search=oak')).text()).toBe(plain);
  });

  test('only the first search parameter counts, + is a space, and a malformed percent sequence is no 500', async () => {
    expect(await dataOf(await get('/api/trees/suggest?search=oak&search=pine'))).toEqual(
      await dataOf(await get('/api/trees/suggest?search=oak')),
    );
    expect(await dataOf(await get('/api/trees/suggest?search=oak+tree'))).toEqual([{ name: 'Oak Tree', level: 69 }]);
    const malformed = await get('/api/trees/suggest?search=%E0%A4%A');
    expect(malformed.status).toBe(200);
  });

  test('a token is required, as for every /api/ path', async () => {
    const response = await fetch(`${runtime.url}/api/trees/suggest?search=oak`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('HEAD has the headers of the GET and no body; OPTIONS is the preflight; other methods 405', async () => {
    const got = await get('/api/trees/suggest?search=oak', { 'Accept-Encoding': 'identity' });
    const head = await get('/api/trees/suggest?search=oak', { 'Accept-Encoding': 'identity' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(got.headers.get('etag'));
    expect(await head.text()).toBe('');
    const preflight = await fetch(`${runtime.url}/api/trees/suggest`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    const post = await get('/api/trees/suggest', {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  test('suggest is no kind, and a path below it is an unknown endpoint', async () => {
    for (const path of ['/api/suggest', '/api/trees/suggest/x', '/api/trees/suggest/oak', '/api/unicorns/suggest']) {
      const response = await get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(((await response.json()) as { message: string }).message).toMatch(/^Unknown endpoint\./);
    }
  });

  test('release=<id> pins suggestions: that release answers, with its X-Data-Version, cached for good', async () => {
    const { id, version: releaseVersion } = manifest.releases.at(-1) ?? { id: '', version: '' };
    for (const search of ['oak', 'sequioa', '6', '']) {
      const pinned = await get(`/api/trees/suggest?search=${search}&release=${id}`);
      expect(pinned.status).toBe(200);
      expect(pinned.headers.get('x-data-version')).toBe(releaseVersion);
      expect(pinned.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      // The first release is the content as it was released: every suggestion is a record of it.
      const released = new Set(releaseNames);
      for (const entry of (await dataOf(pinned)) as { name: string }[]) expect(released).toContain(entry.name);
    }
  });

  test('release= naming no release is the 404 of an unknown release', async () => {
    const response = await get('/api/trees/suggest?search=oak&release=1999-01-01');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: true,
      message: 'The requested release could not be found. The releases are listed at /api/releases.',
    });
  });

  // A prebuilt answer (a key prefix) and one merged from the near-miss shards.
  describe.each([
    ['a prebuilt answer', '/api/trees/suggest?search=oak'],
    ['a near-miss answer', '/api/trees/suggest?search=sequioa'],
  ])('%s: headers, ETag, compression and caching as for other 200s', (_label, path) => {
    test('Content-Type, CORS, nosniff, X-Data-Version, Cache-Control and an ETag', async () => {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-data-version')).toBe(version);
      expect(response.headers.get('cache-control')).toBe('private, max-age=300');
      expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$|^"[0-9a-f]{32}-(br|gzip)"$/);
    });

    test('br and gzip decode to the identity bytes, each with its own ETag; If-None-Match gives 304', async () => {
      const bodies = new Map<string, string>();
      const etags = new Set<string>();
      for (const coding of ['identity', 'gzip', 'br']) {
        // Node's fetch decodes on its own; read the raw bytes through a request that keeps them.
        const response = await rawGet(`${runtime.url}${path}`, coding);
        expect(response.encoding).toBe(coding === 'identity' ? undefined : coding);
        bodies.set(coding, decode(response.bytes, coding));
        etags.add(response.etag);
        const again = await get(path, { 'Accept-Encoding': coding, 'If-None-Match': response.etag });
        expect(again.status).toBe(304);
      }
      expect(new Set(bodies.values()).size).toBe(1);
      expect(etags.size).toBe(3);
    });
  });
});

function decode(bytes: Buffer, coding: string): string {
  if (coding === 'br') return brotliDecompressSync(bytes).toString('utf8');
  if (coding === 'gzip') return gunzipSync(bytes).toString('utf8');
  return bytes.toString('utf8');
}

/** A GET whose body stays as sent (node:http does not decode). */
async function rawGet(url: string, coding: string): Promise<{ bytes: Buffer; etag: string; encoding?: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(url, { headers: { Authorization: `Bearer ${TOKEN}`, 'Accept-Encoding': coding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          bytes: Buffer.concat(chunks),
          etag: String(response.headers.etag),
          encoding: response.headers['content-encoding'],
        }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

test('the offline bundle answers byte for byte as the API does', async () => {
  const runtime = await startRuntime('node', { tokens: [TOKEN] });
  try {
    const bundle = await openBundle(readFileSync(join(distDir, 'downloads', bundleFileName(content.version, 'zip'))));
    for (const kind of kinds) {
      for (const search of ['', 'oak', 'pine', 'sequioa', 'giant sekuoya', '6', 'bread', 'zzzz', 'cellr']) {
        const response = await fetch(`${runtime.url}/api/${kind.id}/suggest?search=${encodeURIComponent(search)}`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
        });
        const body = (await response.text()) as string;
        const offline = JSON.stringify({
          error: false,
          message: `Suggestions for the requested ${kind.noun}.`,
          data: await bundle.suggest(kind.id, search),
        });
        expect({ kind: kind.id, search, body: offline }).toEqual({ kind: kind.id, search, body });
      }
    }
  } finally {
    await runtime.close();
  }
});
