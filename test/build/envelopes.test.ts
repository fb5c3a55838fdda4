// The API built from the real content/ (loadContent + emitApi, without Astro) against the
// game's published figures in test/fixtures/published and the envelopes of the API contract.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emitApi } from '../../src/build/emit.ts';
import { FIXED_BODIES } from '../../src/contract/messages.ts';
import { loadContent } from '../../src/build/content.ts';
import { bodyLayout } from '../../src/contract/body-container.ts';
import { PACK_FILE } from '../../src/contract/build-files.ts';
import {
  BODIES_DIR,
  fixedRoute,
  INDEX_DIR,
  levelRoute,
  listRoute,
  MANIFEST_FILE,
  notFoundRoute,
  pagesRoute,
  queryRoute,
  rootPath,
  SUGGEST_SHARD,
} from '../../src/contract/paths.ts';
import { MAX_SHARD_BYTES } from '../../src/contract/route-index.ts';
import { viewNames, viewRoute } from '../../src/apps/mcp/views.ts';
import { parseSearch } from '../../src/contract/search-query.ts';
import { kinds, type Kind } from '../../src/schema/kinds.ts';
import { buildManifestSchema, type BuildManifest } from '../../src/schema/manifest.ts';
import { routeBytes, scopeRoutes } from '../support/dist-routes.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

/** The game's published figures, copied into the repository (see its README for provenance). */
const referenceDir = join(projectDir, 'test', 'fixtures', 'published');

/** The API fields of each kind, in the order the contract lists them. */
const contractKeyOrder: Record<Kind['id'], string[]> = {
  trees: [
    'name',
    'funfact',
    'plantingRegion',
    'level',
    'growthTime',
    'logCount',
    'logValue',
    'saplingCost',
    'upgradeCost',
  ],
  cutters: ['level', 'name', 'cooldown', 'cost', 'efficiency'],
  gifts: ['level', 'name', 'money', 'logs', 'saplings', 'cutters', 'plots', 'vehicles'],
  plots: ['level', 'cost', 'growthSpeed'],
  storages: ['level', 'name', 'cost', 'capacity'],
  vehicles: ['level', 'name', 'cooldown', 'cost', 'capacity'],
};
const contractCounts = { trees: 106, cutters: 8, gifts: 3, plots: 8, storages: 8, vehicles: 8 };

type JsonRecord = Record<string, unknown>;
interface ReferenceRecord extends JsonRecord {
  level: number;
  name?: string;
  aliases?: string[];
}
interface Envelope {
  error: boolean;
  message: string;
  data?: JsonRecord[];
}

let outDir: string;
let manifest: BuildManifest;
beforeAll(async () => {
  outDir = temporaryFolder('treefarm-api-');
  manifest = (await emitApi(loadContent(join(projectDir, 'content')), outDir)).manifest;
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const readFile = (path: string) => readFileSync(join(outDir, path), 'utf8');
/** The text of the body a route of the current data names. */
const readText = (route: string) => routeBytes(route, 'identity', undefined, outDir).toString('utf8');
const readEnvelope = (route: string) => JSON.parse(readText(route)) as Envelope;
const reference = (kind: Kind) =>
  JSON.parse(readFileSync(join(referenceDir, `${kind.id}.json`), 'utf8')) as ReferenceRecord[];

/** The published figures of a record: the reference without its search metadata. */
function figures({ aliases: _aliases, ...record }: ReferenceRecord): JsonRecord {
  return record;
}

/** A served record without the fields the reference does not publish (trees' fun facts). */
function published(record: JsonRecord): JsonRecord {
  const { funfact: _funfact, ...rest } = record;
  return rest;
}

/** Every file below a folder, by path relative to it, with its bytes. */
function tree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files.set(
        relative(dir, join(entry.parentPath, entry.name)).replaceAll('\\', '/'),
        readFileSync(join(entry.parentPath, entry.name)),
      );
  }
  return files;
}

/** The routes of the current data: every answer of the kinds' endpoints, suggestions and errors. */
const routes = () => scopeRoutes(undefined, outDir);
/** The routes of the kinds' endpoints (not the edge's fixed error bodies, nor suggestions). */
const apiEnvelopePaths = () =>
  [...routes().keys()].filter(
    (route) =>
      !route.startsWith('_edge/') &&
      !route.includes('/suggest/') &&
      route !== 'releases' &&
      !kinds.some((kind) => route === pagesRoute(kind.id)),
  );

describe.each(kinds.map((kind) => [kind.id, kind] as const))('%s', (_id, kind) => {
  const successMessage = `The requested ${kind.noun} data was successfully found.`;

  test('the list holds every published record with its figures exactly, ordered by level', () => {
    const { data = [] } = readEnvelope(listRoute(kind.id));
    expect(data.map(published)).toEqual(reference(kind).map(figures));
  });

  test('every record carries exactly the API fields, in the order the contract lists them', () => {
    const { data = [] } = readEnvelope(listRoute(kind.id));
    for (const record of data) expect(Object.keys(record)).toEqual(contractKeyOrder[kind.id]);
  });

  test('the list envelope is byte for byte the contract envelope', () => {
    const { data = [] } = readEnvelope(listRoute(kind.id));
    expect(readText(listRoute(kind.id))).toBe(
      `{"error":false,"message":"${successMessage}","data":${JSON.stringify(data)}}`,
    );
  });

  test('the not-found envelope is byte for byte the contract message, with no data member', () => {
    expect(readText(notFoundRoute(kind.id))).toBe(
      `{"error":true,"message":"The requested ${kind.noun} could not be found with the provided query. ` +
        'Please check the name or ID and try again."}',
    );
  });

  test('every emitted envelope is a success with the contract message and published records, in list order', () => {
    const listed = readEnvelope(listRoute(kind.id)).data ?? [];
    const envelopes = apiEnvelopePaths().filter(
      (path) => path.startsWith(`${kind.id}/`) && path !== notFoundRoute(kind.id),
    );
    expect(envelopes.length).toBeGreaterThan(0);
    for (const path of envelopes) {
      const { error, message, data } = readEnvelope(path);
      expect({ path, error, message }).toEqual({ path, error: false, message: successMessage });
      expect(data?.length).toBeGreaterThan(0);
      const positions = (data ?? []).map((record) =>
        listed.findIndex((candidate) => JSON.stringify(candidate) === JSON.stringify(record)),
      );
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  test("its pages body lists every record's level, name and wiki page (its content file), in list order", () => {
    const body = storedBodies().get(routes().get(pagesRoute(kind.id)) ?? '') ?? Buffer.alloc(0);
    const { pages } = JSON.parse(partOf(body, 'identity').toString('utf8')) as { pages: unknown[] };
    const files = readdirSync(join(projectDir, 'content', kind.id)).map((file) => file.replace(/\.ya?ml$|\.json$/, ''));
    const listed = (readEnvelope(listRoute(kind.id)).data ?? []) as { level: number; name?: string }[];
    expect(pages.map((page) => (page as unknown[]).slice(0, 2))).toEqual(
      listed.map((record) => [record.level, record.name ?? null]),
    );
    expect(pages.map((page) => (page as unknown[])[2]).sort()).toEqual(files.sort());
  });

  test('every level finds exactly the records of that level, in list order', () => {
    const levels = new Set(reference(kind).map((record) => record.level));
    for (const level of levels) {
      const { data = [] } = readEnvelope(levelRoute(kind.id, level));
      expect(data.map(published)).toEqual(
        reference(kind)
          .filter((record) => record.level === level)
          .map(figures),
      );
    }
  });
});

const namedKinds = kinds.filter((kind) => kind.named);
describe.each(namedKinds.map((kind) => [kind.id, kind] as const))('%s', (_id, kind) => {
  test('every record is found by its name and by each alias, in any spelling of its key', () => {
    for (const record of reference(kind)) {
      for (const name of [record.name ?? '', ...(record.aliases ?? [])]) {
        for (const spelling of [name, name.toUpperCase(), name.toLowerCase().replaceAll(' ', '_')]) {
          const path = queryRoute(kind.id, parseSearch(spelling)) ?? '';
          expect(readEnvelope(path).data?.map(published)).toEqual([figures(record)]);
        }
      }
    }
  });
});

test('routes are named <kind>/list, <kind>/level/<n>, <kind>/name/<key> and <kind>/not-found', () => {
  const layout: [kind: Kind['id'], search: string | null, route: string | undefined][] = [
    ['trees', null, 'trees/list'],
    ['trees', ' NULL ', 'trees/list'],
    ['trees', 'Oak Tree', 'trees/name/oaktree'],
    ['trees', '05', 'trees/level/5'],
    ['cutters', 'Bread Knife', 'cutters/name/breadknife'],
    ['gifts', '1', 'gifts/level/1'],
    ['trees', '!!!', undefined],
  ];
  for (const [kind, search, route] of layout) {
    expect({ kind, search, route: queryRoute(kind, parseSearch(search)) }).toEqual({ kind, search, route });
    if (route) expect(apiEnvelopePaths()).toContain(route);
  }
  expect(apiEnvelopePaths()).toContain('trees/not-found');
});

test('a tree is found by the alias its content gives: the species spelling of a misspelled name', () => {
  const path = queryRoute('trees', parseSearch('Croton Megalocarpus'));
  expect(path).toBe('trees/name/crotonmegalocarpus');
  expect(readEnvelope(path ?? '').data?.map((record) => record['name'])).toEqual(['Croton Megabcarpas']);
});

test('plots have no names: no name envelopes, found by level only', () => {
  expect(apiEnvelopePaths().filter((path) => path.startsWith('plots/name/'))).toEqual([]);
});

test('gifts at level 1 are small, then medium', () => {
  expect(readEnvelope(levelRoute('gifts', 1)).data?.map((gift) => gift.name)).toEqual(['small', 'medium']);
});

test('the largest figure, upgradeCost 23619637994, survives exactly', () => {
  const top = readEnvelope(listRoute('trees')).data?.find((tree) => tree.level === 106);
  expect(top?.upgradeCost).toBe(23_619_637_994);
  expect(readText(levelRoute('trees', 106))).toContain('"upgradeCost":23619637994}');
});

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
/** Every stored body below api/bodies/, by its name. */
const storedBodies = () =>
  new Map(
    [...tree(outDir)]
      .filter(([path]) => path.startsWith(`${BODIES_DIR}/`))
      .map(([path, bytes]) => [path.slice(BODIES_DIR.length + 1), bytes]),
  );
const partOf = (bytes: Buffer, part: 'identity' | 'br' | 'gzip') => {
  const [start, end] = bodyLayout(bytes, 'a stored body')[part];
  return bytes.subarray(start, end);
};

describe('the manifest', () => {
  test('is valid and is what emitApi returned', () => {
    expect(buildManifestSchema.parse(JSON.parse(readFile(MANIFEST_FILE)))).toEqual(manifest);
  });

  test('counts the records of every kind', () => {
    expect(manifest.counts).toEqual(contractCounts);
  });
});

describe('the stored bodies', () => {
  test('each is named by the SHA-256 of its bytes', () => {
    for (const [name, bytes] of storedBodies()) expect({ name, sha256: sha256(bytes) }).toEqual({ name, sha256: name });
  });

  test('each distinct body is stored once: no two hold the same identity bytes', () => {
    const identities = [...storedBodies().values()].map((bytes) => sha256(partOf(bytes, 'identity')));
    expect(new Set(identities).size).toBe(identities.length);
  });

  test('every route names a stored body, and every stored body is named by a route', () => {
    const named = new Set(routes().values());
    const bodies = storedBodies();
    expect([...named].filter((body) => !bodies.has(body))).toEqual([]);
    expect([...bodies.keys()].filter((body) => !named.has(body))).toEqual([]);
  });

  test('records with one level share one body between their name and their level', () => {
    // Oak Tree is alone at its level: its name and level answers are one body.
    const oak = readEnvelope('trees/name/oaktree').data?.[0];
    expect(routes().get('trees/name/oaktree')).toBe(routes().get(levelRoute('trees', Number(oak?.['level']))));
  });

  test('dist/ holds the bodies, the index, the pack, the manifest and .assetsignore, and nothing else', () => {
    const others = [...tree(outDir).keys()].filter(
      (path) => !path.startsWith(`${BODIES_DIR}/`) && !path.startsWith(`${INDEX_DIR}/`),
    );
    expect(others.sort()).toEqual(['.assetsignore', PACK_FILE, MANIFEST_FILE]);
  });
});

describe('the routing index', () => {
  test('no shard is larger than MAX_SHARD_BYTES, and the root says how many there are', () => {
    const { shards } = JSON.parse(readFile(rootPath(undefined))) as { shards: number };
    const files = [...tree(outDir)].filter(([path]) => path.startsWith(`${INDEX_DIR}/current/`));
    expect(files.length).toBe(shards + 1);
    for (const [path, bytes] of files)
      expect({ path, small: bytes.length <= MAX_SHARD_BYTES }).toEqual({ path, small: true });
  });

  test('the root holds the data version', () => {
    expect(JSON.parse(readFile(rootPath(undefined)))).toMatchObject({ version: manifest.version });
  });
});

describe('the pack', () => {
  test('holds every stored body once, one after another', () => {
    const pack = tree(outDir).get(PACK_FILE) ?? Buffer.alloc(0);
    const bodies = storedBodies();
    let offset = 0;
    const seen: string[] = [];
    while (offset < pack.length) {
      const line = pack.indexOf(0x0a, offset);
      const sizes = pack.subarray(offset, line).toString('latin1').split(' ').map(Number);
      const end = line + 1 + sizes.reduce((sum, size) => sum + size, 0);
      const name = sha256(pack.subarray(offset, end));
      expect(bodies.get(name)?.equals(pack.subarray(offset, end))).toBe(true);
      seen.push(name);
      offset = end;
    }
    expect(seen.sort()).toEqual([...bodies.keys()].sort());
    expect(manifest.pack).toEqual({ sha256: sha256(pack), size: pack.length, bodies: bodies.size });
  });

  test('is left out of the Worker deployment: .assetsignore lists it', () => {
    expect(readFile('.assetsignore').split('\n')).toContain('api/bodies.pack');
  });
});

describe('compression at build time', () => {
  test('every br and gzip variant decodes to its body; near-miss shards, pages, views (never sent) have none', () => {
    const pages = new Set([...kinds.map((kind) => pagesRoute(kind.id)), ...viewNames.map(viewRoute)]);
    const shards = new Set(
      [...routes()]
        .filter(([route]) => route.includes(`/${SUGGEST_SHARD}`) || pages.has(route))
        .map(([, body]) => body),
    );
    for (const [name, bytes] of storedBodies()) {
      const identity = partOf(bytes, 'identity');
      if (shards.has(name)) {
        expect({ name, br: partOf(bytes, 'br').length, gzip: partOf(bytes, 'gzip').length }).toEqual({
          name,
          br: 0,
          gzip: 0,
        });
        continue;
      }
      expect({ name, br: brotliDecompressSync(partOf(bytes, 'br')) }).toEqual({ name, br: identity });
      expect({ name, gzip: gunzipSync(partOf(bytes, 'gzip')) }).toEqual({ name, gzip: identity });
    }
  });

  test('a list compresses to a fraction of its size: br smaller than gzip, both under half', () => {
    const body = storedBodies().get(routes().get(listRoute('trees')) ?? '') ?? Buffer.alloc(0);
    const [size, br, gzip] = (['identity', 'br', 'gzip'] as const).map((part) => partOf(body, part).length);
    expect(br).toBeLessThan(gzip ?? 0);
    expect(gzip).toBeLessThan((size ?? 0) / 2);
  });

  test("the edge's fixed error bodies are stored bodies too, byte for byte the contract's", () => {
    for (const { name, body } of FIXED_BODIES) expect(readText(fixedRoute(name))).toBe(body);
  });
});

test('two builds of the same content give byte-identical output', async () => {
  const again = temporaryFolder('treefarm-api-again-');
  try {
    await emitApi(loadContent(join(projectDir, 'content')), again);
    expect(tree(again)).toEqual(tree(outDir));
  } finally {
    rmSync(again, { recursive: true, force: true });
  }
});
