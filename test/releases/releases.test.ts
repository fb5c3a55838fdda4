// Data releases end to end, on a temp copy of the content: release, change a figure, release,
// add a tree, release, rename a cutter, release, leave one edit unreleased; build. Then the
// changes, every release's pinned answers in both runtimes, the offline bundle, the feeds and
// the wiki pages show exactly that history. Expected values are written out by hand.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { staleReason } from '../../src/build/freshness.ts';
import { releaseDigest, type ReleaseData } from '../../src/build/releases.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { createClient, NotFoundError, openBundle, type TreefarmData } from '../../src/client/index.ts';
import { BUILD_SETTINGS_FILE } from '../../src/contract/build-files.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { readManifest } from '../../src/server/body-store.ts';
import { minimalRecords } from '../fixtures/minimal-content.ts';
import { filesBelow, tempDir } from '../support/builds.ts';
import { contractRuntimeNames, startRuntime, type Runtime } from '../support/runtimes.ts';
import { HISTORY_ORIGIN, MAPLE, makeHistory, runBuild, runRelease, type History } from '../support/release-history.ts';

const TOKEN = 'releases-test-token';
const IMMUTABLE = 'private, max-age=31536000, immutable';
const UNKNOWN_RELEASE =
  '{"error":true,"message":"The requested release could not be found. The releases are listed at /api/releases."}';
const CUTTER_NOT_FOUND =
  '{"error":true,"message":"The requested cutter could not be found with the provided query. ' +
  'Please check the name or ID and try again."}';

type Fields = Record<string, unknown>;
const { aliases: _aliases, ...knife } = minimalRecords['cutters/knife.yaml'] ?? {};
const fist = minimalRecords['cutters/fist.yaml'];
const blade = { ...knife, name: 'Blade' };
const oak = minimalRecords['trees/oak-tree.yaml'] ?? {};
const birch = minimalRecords['trees/birch-tree.yaml'] ?? {};
const oak7 = { ...oak, logValue: 7 };

let history: History;
let ids: History['ids'];
let dist: string;
let build: { status: number | null; output: string };
const versions: Record<string, string> = {};

const listing = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((name) => `${name} ${readFileSync(join(dir, name), 'base64')}`)
    .join('\n');

beforeAll(async () => {
  history = makeHistory(listing);
  ids = history.ids;
  for (const id of ids)
    versions[id] = (JSON.parse(readFileSync(join(history.project.root, 'releases', `${id}.json`), 'utf8')) as Fields)
      .version as string;
  dist = join(history.project.root, 'dist');
  build = await runBuild(history.project.root, dist);
}, 240_000);
afterAll(() => history?.project.remove());

test('the history builds', () => {
  expect({ status: build.status, output: build.status === 0 ? '' : build.output }).toEqual({ status: 0, output: '' });
});

test('the build records its data folder (TREEFARM_DATA_DIR): npm start of the project would build again', () => {
  const root = history.project.root;
  expect(JSON.parse(readFileSync(join(dist, BUILD_SETTINGS_FILE), 'utf8'))).toEqual({
    SITE_ORIGIN: HISTORY_ORIGIN,
    TREEFARM_DATA_DIR: root,
  });
  expect(staleReason(projectDir, dist, { siteOrigin: HISTORY_ORIGIN, dataDir: root })).toBeUndefined();
  expect(staleReason(projectDir, dist, { siteOrigin: HISTORY_ORIGIN, dataDir: undefined })).toBe(
    `TREEFARM_DATA_DIR is now unset; the last build was made with ${JSON.stringify(root)}`,
  );
});

test('release ids are the UTC date, then -2, -3, -4 for later releases the same day', () => {
  const [first] = ids;
  expect(first).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  // The four were made within seconds; past midnight UTC the day would start again at the date.
  if (ids.every((id) => id.startsWith(first))) expect(ids).toEqual([first, `${first}-2`, `${first}-3`, `${first}-4`]);
});

test('npm run release with nothing changed refuses, says why, and writes nothing', () => {
  expect(history.unchanged.status).toBe(1);
  expect(history.unchanged.output).toContain(`The content is the same as the latest release, ${ids[3]}`);
  expect(history.filesAfter).toBe(history.filesBefore);
});

test('npm run release refuses invalid content, naming the file, and writes nothing', () => {
  const copy = tempDir('release-invalid');
  try {
    cpSync(history.project.root, copy, { recursive: true, filter: (path) => !path.startsWith(dist) });
    writeFileSync(join(copy, 'content/trees/oak-tree.yaml'), 'name: Oak Tree\nlevel: "5"\n');
    const before = listing(join(copy, 'releases'));
    const result = runRelease(copy, 'Broken.');
    expect(result.status).toBe(1);
    expect(result.output).toContain('content/trees/oak-tree.yaml');
    expect(listing(join(copy, 'releases'))).toBe(before);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

describe('a release file edited after it was made fails the build, naming the file', () => {
  const tamper = async (edit: (release: ReleaseData & { sha256: string }) => void) => {
    const copy = tempDir('release-tampered');
    try {
      cpSync(history.project.root, copy, { recursive: true, filter: (path) => !path.startsWith(dist) });
      const path = join(copy, 'releases', `${ids[1]}.json`);
      const release = JSON.parse(readFileSync(path, 'utf8')) as ReleaseData & { sha256: string };
      edit(release);
      writeFileSync(path, `${JSON.stringify(release, null, 2)}\n`);
      return await runBuild(copy, join(copy, 'dist'));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  };

  test('a figure changed in it: its sha256 no longer matches', async () => {
    const result = await tamper((release) => {
      const tree = release.records.trees[0];
      if (tree) tree.data['logValue'] = 8;
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain(`releases/${ids[1]}.json: was edited after the release was made`);
  });

  test('changed and given a new sha256: the next release in the chain no longer matches', async () => {
    const result = await tamper((release) => {
      release.notes = 'Rewritten notes.';
      const { sha256: _old, ...data } = release;
      release.sha256 = releaseDigest(data);
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain(`releases/${ids[2]}.json: previous: does not match the release before it`);
  });
});

const counts = (trees: number) => ({ trees, cutters: 2, gifts: 2, plots: 2, storages: 2, vehicles: 2 });
const noChanges = { added: [], removed: [], changed: [] };

function expectedReleases(): unknown {
  const [first, second, third, fourth] = ids;
  const entry = (id: string, notes: string, trees: number, changes: Fields) => ({
    id,
    date: id.slice(0, 10),
    version: versions[id],
    notes,
    counts: counts(trees),
    changes: { ...noChanges, ...changes },
  });
  const named = (kind: string, name: string, level: number) => ({ kind, name, level });
  return {
    error: false,
    message: 'The requested release data was successfully found.',
    data: [
      entry(fourth, 'The Knife is now the Blade.', 3, {
        changed: [{ ...named('cutters', 'Blade', 2), fields: { name: { from: 'Knife', to: 'Blade' } } }],
      }),
      entry(third, 'A new tree: Maple.', 3, { added: [named('trees', 'Maple Tree', 3)] }),
      entry(second, 'Oak logs are worth more.', 2, {
        changed: [{ ...named('trees', 'Oak Tree', 1), fields: { logValue: { from: 6, to: 7 } } }],
      }),
      entry(first, 'First release.', 2, {
        added: [
          named('trees', 'Oak Tree', 1),
          named('trees', 'Birch Tree', 2),
          named('cutters', 'Fist', 1),
          named('cutters', 'Knife', 2),
          named('gifts', 'small', 1),
          named('gifts', 'medium', 1),
          { kind: 'plots', level: 1 },
          { kind: 'plots', level: 2 },
          named('storages', 'Chest', 1),
          named('storages', 'Crate', 2),
          named('vehicles', 'Wagon', 1),
          named('vehicles', 'Cargo Bike', 2),
        ],
      }),
    ],
  };
}

/** Each release's trees and cutters, by hand, oldest first. */
const releasedLists = () => [
  { id: ids[0], trees: [oak, birch], cutters: [fist, knife] },
  { id: ids[1], trees: [oak7, birch], cutters: [fist, knife] },
  { id: ids[2], trees: [oak7, birch, MAPLE], cutters: [fist, knife] },
  { id: ids[3], trees: [oak7, birch, MAPLE], cutters: [fist, blade] },
];

describe.each(contractRuntimeNames)('%s runtime', (runtimeName) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(runtimeName, { tokens: [TOKEN], servedDir: dist });
  }, 120_000);
  afterAll(() => runtime?.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${runtime.url}${path}`, { headers: { Authorization: `Bearer ${TOKEN}`, ...headers } });
  const dataOf = async (path: string) => ((await (await get(path)).json()) as { data?: unknown }).data;

  test('GET /api/releases lists every release, newest first, with its changes: the body of the contract', async () => {
    const response = await get('/api/releases');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(JSON.stringify(expectedReleases()));
    expect(response.headers.get('cache-control')).toBe('private, max-age=300');
  });

  test('GET /api/releases needs the token, and takes HEAD and OPTIONS', async () => {
    expect((await fetch(`${runtime.url}/api/releases`)).status).toBe(401);
    const head = await fetch(`${runtime.url}/api/releases/`, { method: 'HEAD', headers: { Authorization: TOKEN } });
    expect({ status: head.status, body: await head.text() }).toEqual({ status: 200, body: '' });
    expect((await fetch(`${runtime.url}/api/releases`, { method: 'OPTIONS' })).status).toBe(204);
    expect(
      (await fetch(`${runtime.url}/api/releases`, { method: 'POST', headers: { Authorization: TOKEN } })).status,
    ).toBe(405);
  });

  test('release=<id> answers every list with that release data, its X-Data-Version, cached for good', async () => {
    for (const release of releasedLists()) {
      for (const kind of ['trees', 'cutters'] as const) {
        const response = await get(`/api/${kind}?release=${release.id}`);
        const label = `${kind} of ${release.id}`;
        expect({ label, status: response.status, data: ((await response.json()) as Fields).data }).toEqual({
          label,
          status: 200,
          data: release[kind],
        });
        expect({ label, version: response.headers.get('x-data-version') }).toEqual({
          label,
          version: versions[release.id],
        });
        expect({ label, cache: response.headers.get('cache-control') }).toEqual({ label, cache: IMMUTABLE });
      }
    }
  });

  test('without release the API answers from the content, unreleased edits included', async () => {
    const response = await get('/api/trees');
    expect(((await response.json()) as Fields).data).toEqual([oak7, { ...birch, logCount: 120 }, MAPLE]);
    expect(response.headers.get('cache-control')).toBe('private, max-age=300');
    expect(response.headers.get('x-data-version')).not.toBe(versions[ids[3]]);
  });

  test('a pinned level search finds what that release held', async () => {
    expect((await get(`/api/trees?search=3&release=${ids[1]}`)).status).toBe(404);
    expect(await dataOf(`/api/trees?search=3&release=${ids[2]}`)).toEqual([MAPLE]);
    expect(await dataOf(`/api/trees?search=Oak%20Tree&release=${ids[0]}`)).toEqual([oak]);
  });

  test('a renamed cutter is found by its new name and its old (alias); older releases know only the old', async () => {
    expect(await dataOf('/api/cutters?search=Blade')).toEqual([blade]);
    expect(await dataOf('/api/cutters?search=knife')).toEqual([blade]);
    expect(await dataOf('/api/cutters?search=bread-knife')).toEqual([blade]);
    expect(await dataOf(`/api/cutters?search=Knife&release=${ids[3]}`)).toEqual([blade]);
    expect(await dataOf(`/api/cutters?search=Knife&release=${ids[2]}`)).toEqual([knife]);
    const before = await get(`/api/cutters?search=Blade&release=${ids[2]}`);
    expect({ status: before.status, body: await before.text() }).toEqual({ status: 404, body: CUTTER_NOT_FOUND });
    expect(before.headers.get('x-data-version')).toBe(versions[ids[2]]);
  });

  test('an unknown release is the 404 of the contract, whatever the search', async () => {
    for (const query of ['release=1999-01-01', 'release=latest&search=Oak%20Tree', `release=${ids[0]}-9`]) {
      const response = await get(`/api/trees?${query}`);
      expect({ query, status: response.status, body: await response.text() }).toEqual({
        query,
        status: 404,
        body: UNKNOWN_RELEASE,
      });
    }
  });

  test('a pinned answer honours If-None-Match with 304, still cached for good', async () => {
    const path = `/api/trees?release=${ids[0]}`;
    const etag = (await get(path)).headers.get('etag') ?? '';
    const again = await get(path, { 'If-None-Match': etag });
    expect({ status: again.status, cache: again.headers.get('cache-control') }).toEqual({
      status: 304,
      cache: IMMUTABLE,
    });
  });
});

describe('the typed client, online and offline, answers every release identically', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime('node', { tokens: [TOKEN], servedDir: dist });
  });
  afterAll(() => runtime?.close());

  async function outcomes(client: TreefarmData): Promise<unknown[]> {
    const asks = [
      () => client.trees(),
      () => client.cutters(),
      () => client.cutters('knife'),
      () => client.cutters('Blade'),
      () => client.trees(3),
    ];
    const results: unknown[] = [];
    for (const ask of asks) {
      try {
        results.push(await ask());
      } catch (error) {
        results.push({ error: (error as Error).name, message: (error as Error).message });
      }
    }
    return results;
  }

  test.each([undefined, 0, 1, 2, 3, 'unknown'] as const)('release %s', async (which) => {
    const release = typeof which === 'number' ? ids[which] : which === 'unknown' ? '1999-01-01' : undefined;
    const manifest = await readManifest(dist);
    const bundle = join(dist, 'downloads', bundleFileName(manifest.version, 'tar.gz'));
    const online = createClient({ baseUrl: runtime.url, token: TOKEN, release });
    const offline = await openBundle(readFileSync(bundle), { release });
    const answers = await outcomes(online);
    expect(await outcomes(offline)).toEqual(answers);
    expect(await offline.releases()).toEqual(await online.releases());
    if (which === 3) expect(answers[2]).toEqual([blade]);
    if (which === 'unknown') await expect(online.trees()).rejects.toBeInstanceOf(NotFoundError);
  });
});

// The built wiki and feeds, read as files of the temp dist/.
const distFile = (path: string) => readFileSync(join(dist, path), 'utf8');
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replaceAll('&#36;', '$');
/** The file of dist/ that a URL of the site names (directory pages as their index.html). */
function resolvesInDist(url: string): boolean {
  const { pathname, origin } = new URL(url);
  if (origin !== HISTORY_ORIGIN) return false;
  const path = decodeURIComponent(pathname).slice(1);
  const files = new Set(filesBelow(dist));
  return files.has(path) || files.has(`${path}${path.endsWith('/') || path === '' ? '' : '/'}index.html`);
}

describe('feeds', () => {
  test('the Atom feed is well-formed XML with the required elements, newest release first', () => {
    const xml = distFile('changes/atom.xml');
    expect(XMLValidator.validate(xml)).toBe(true);
    const feed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (name) => name === 'entry',
    }).parse(xml).feed as Fields & { entry: Fields[] };
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    for (const element of ['id', 'title', 'updated']) expect(feed[element]).toBeTruthy();
    expect(feed.entry.map((entry) => entry['title'])).toEqual([...ids].reverse().map((id) => `Release ${id}`));
    for (const entry of feed.entry) {
      for (const element of ['id', 'title', 'updated', 'link']) expect(entry[element]).toBeTruthy();
      expect(entry['updated']).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
      expect(resolvesInDist((entry['link'] as Fields)['@href'] as string)).toBe(true);
    }
    expect(feed.entry[0]?.['content']).toBeTruthy();
  });

  test('the JSON Feed has the fields JSON Feed 1.1 requires, newest release first', () => {
    const feed = JSON.parse(distFile('changes/feed.json')) as Fields & { items: Fields[] };
    expect(feed['version']).toBe('https://jsonfeed.org/version/1.1');
    expect(typeof feed['title']).toBe('string');
    expect(feed.items.map((item) => item['title'])).toEqual([...ids].reverse().map((id) => `Release ${id}`));
    for (const item of feed.items) {
      expect(typeof item['id']).toBe('string');
      expect(typeof item['content_html']).toBe('string');
      expect(resolvesInDist(item['url'] as string)).toBe(true);
    }
    expect(resolvesInDist(feed['home_page_url'] as string)).toBe(true);
    expect(resolvesInDist(feed['feed_url'] as string)).toBe(true);
  });

  test('every link in the feeds resolves to a file of the build', () => {
    const links = [distFile('changes/atom.xml'), distFile('changes/feed.json')].flatMap((text) =>
      [...text.matchAll(/https:\/\/treefarm\.example\/[^"'&<\s\\]*/g)].map((match) => match[0]),
    );
    expect(links.length).toBeGreaterThan(10);
    for (const link of new Set(links))
      expect({ link, resolves: resolvesInDist(link) }).toEqual({ link, resolves: true });
  });

  test('every page links both feeds from its head', () => {
    for (const page of filesBelow(dist).filter((path) => path.endsWith('.html'))) {
      const head = distFile(page).split('</head>')[0] ?? '';
      expect({ page, atom: head.includes('type="application/atom+xml"') }).toEqual({ page, atom: true });
      expect({ page, json: head.includes('type="application/feed+json"') }).toEqual({ page, json: true });
    }
  });
});

describe('wiki', () => {
  test('the Changes page shows the unreleased edit, then each release newest first with old and new values', () => {
    const html = distFile('changes/index.html');
    const sections = [...html.matchAll(/<section id="([^"]+)"/g)].map((match) => match[1]);
    expect(sections).toEqual(['unreleased', ...[...ids].reverse().map((id) => `release-${id}`)]);
    const section = (id: string) => textOf(html.split(`<section id="${id}"`)[1]?.split('</section>')[0] ?? '');
    expect(section('unreleased')).toContain('Not yet released');
    expect(section('unreleased')).toContain('Birch Tree Trees Logs per harvest 119 120');
    expect(section(`release-${ids[1]}`)).toContain('Oak logs are worth more.');
    expect(section(`release-${ids[1]}`)).toContain('Oak Tree Trees Log value $6 $7');
    expect(section(`release-${ids[2]}`)).toContain('Added Record Kind Level Maple Tree Trees 3');
    expect(section(`release-${ids[3]}`)).toContain('Blade Cutters Name Knife Blade');
  });

  test('each release has its own page', () => {
    for (const id of ids) expect(textOf(distFile(`changes/${id}/index.html`))).toContain(`Release ${id}`);
  });

  test("a record page's History lists the releases that changed it, newest first", () => {
    const historyOf = (page: string) =>
      textOf(distFile(page).split('id="history-heading"')[1]?.split('</section>')[0] ?? '');
    expect(historyOf('trees/oak-tree/index.html')).toContain(
      `${ids[1]} ${ids[1].slice(0, 10)} Log value: $6 → $7 ${ids[0]} ${ids[0].slice(0, 10)} Added`,
    );
    expect(historyOf('cutters/knife/index.html')).toContain(`${ids[3]} ${ids[3].slice(0, 10)} Name: Knife → Blade`);
    expect(historyOf('trees/birch-tree/index.html')).toContain('Not yet released — Logs per harvest: 119 → 120');
    expect(historyOf('trees/maple-tree/index.html')).toContain(`${ids[2]} ${ids[2].slice(0, 10)} Added`);
  });
});
