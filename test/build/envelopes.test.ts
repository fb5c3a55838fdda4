// The API built from the real content/ (loadContent + emitApi, without Astro) against the
// game's published figures in test/fixtures/published and the envelopes of the API contract.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emitApi } from '../../src/build/api.ts';
import { FIXED_BODIES } from '../../src/contract/messages.ts';
import { loadContent } from '../../src/build/content.ts';
import {
  API_DIR,
  compressedPath,
  fixedBodyPath,
  levelPath,
  listPath,
  MANIFEST_FILE,
  notFoundPath,
  queryPath,
} from '../../src/contract/paths.ts';
import { parseSearch } from '../../src/contract/search-query.ts';
import { kinds, type Kind } from '../../src/schema/kinds.ts';
import { buildManifestSchema, type BuildManifest } from '../../src/schema/manifest.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));
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
  outDir = mkdtempSync(join(tmpdir(), 'treefarm-api-'));
  manifest = await emitApi(loadContent(join(projectDir, 'content')), outDir);
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const readText = (path: string) => readFileSync(join(outDir, path), 'utf8');
const readEnvelope = (path: string) => JSON.parse(readText(path)) as Envelope;
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

/** The near-miss shards of the suggestion index: read by the edge, never served, so without variants. */
const isIndexFile = (path: string) => /^api\/(releases\/[^/]+\/)?[a-z]+\/suggest\/near\//.test(path);
const jsonFiles = () =>
  [...tree(outDir).keys()].filter((path) => path.startsWith(`${API_DIR}/`) && path.endsWith('.json'));
/** The API files served (not their .br and .gz variants, nor the index). */
const apiFilePaths = () => jsonFiles().filter((path) => !isIndexFile(path));
const indexFilePaths = () => jsonFiles().filter(isIndexFile);
/** The envelopes of the kinds' endpoints (not the edge's fixed error bodies, nor suggestions). */
const apiEnvelopePaths = () =>
  apiFilePaths().filter((path) => !path.startsWith(`${API_DIR}/_edge/`) && !path.includes('/suggest/'));

describe.each(kinds.map((kind) => [kind.id, kind] as const))('%s', (_id, kind) => {
  const successMessage = `The requested ${kind.noun} data was successfully found.`;

  test('the list holds every published record with its figures exactly, ordered by level', () => {
    const { data = [] } = readEnvelope(listPath(kind.id));
    expect(data.map(published)).toEqual(reference(kind).map(figures));
  });

  test('every record carries exactly the API fields, in the order the contract lists them', () => {
    const { data = [] } = readEnvelope(listPath(kind.id));
    for (const record of data) expect(Object.keys(record)).toEqual(contractKeyOrder[kind.id]);
  });

  test('the list envelope is byte for byte the contract envelope', () => {
    const { data = [] } = readEnvelope(listPath(kind.id));
    expect(readText(listPath(kind.id))).toBe(
      `{"error":false,"message":"${successMessage}","data":${JSON.stringify(data)}}`,
    );
  });

  test('the not-found envelope is byte for byte the contract message, with no data member', () => {
    expect(readText(notFoundPath(kind.id))).toBe(
      `{"error":true,"message":"The requested ${kind.noun} could not be found with the provided query. ` +
        'Please check the name or ID and try again."}',
    );
  });

  test('every emitted envelope is a success with the contract message and published records, in list order', () => {
    const listed = readEnvelope(listPath(kind.id)).data ?? [];
    const envelopes = apiEnvelopePaths().filter(
      (path) => path.startsWith(`${API_DIR}/${kind.id}/`) && path !== notFoundPath(kind.id),
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

  test('every level finds exactly the records of that level, in list order', () => {
    const levels = new Set(reference(kind).map((record) => record.level));
    for (const level of levels) {
      const { data = [] } = readEnvelope(levelPath(kind.id, level));
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
          const path = queryPath(kind.id, parseSearch(spelling)) ?? '';
          expect(readEnvelope(path).data?.map(published)).toEqual([figures(record)]);
        }
      }
    }
  });
});

test('the files are laid out as api/<kind>/index.json, level/<n>.json, name/<key>.json and not-found.json', () => {
  const layout: [kind: Kind['id'], search: string | null, path: string | undefined][] = [
    ['trees', null, 'api/trees/index.json'],
    ['trees', ' NULL ', 'api/trees/index.json'],
    ['trees', 'Oak Tree', 'api/trees/name/oaktree.json'],
    ['trees', '05', 'api/trees/level/5.json'],
    ['cutters', 'Bread Knife', 'api/cutters/name/breadknife.json'],
    ['gifts', '1', 'api/gifts/level/1.json'],
    ['trees', '!!!', undefined],
  ];
  for (const [kind, search, path] of layout) {
    expect({ kind, search, path: queryPath(kind, parseSearch(search)) }).toEqual({ kind, search, path });
    if (path) expect(apiEnvelopePaths()).toContain(path);
  }
  expect(apiEnvelopePaths()).toContain('api/trees/not-found.json');
});

test('a tree is found by the alias its content gives: the species spelling of a misspelled name', () => {
  const path = queryPath('trees', parseSearch('Croton Megalocarpus'));
  expect(path).toBe('api/trees/name/crotonmegalocarpus.json');
  expect(readEnvelope(path ?? '').data?.map((record) => record['name'])).toEqual(['Croton Megabcarpas']);
});

test('plots have no names: no name envelopes, found by level only', () => {
  expect(apiEnvelopePaths().filter((path) => path.startsWith(`${API_DIR}/plots/name/`))).toEqual([]);
});

test('gifts at level 1 are small, then medium', () => {
  expect(readEnvelope(levelPath('gifts', 1)).data?.map((gift) => gift.name)).toEqual(['small', 'medium']);
});

test('the largest figure, upgradeCost 23619637994, survives exactly', () => {
  const top = readEnvelope(listPath('trees')).data?.find((tree) => tree.level === 106);
  expect(top?.upgradeCost).toBe(23_619_637_994);
  expect(readText(levelPath('trees', 106))).toContain('"upgradeCost":23619637994}');
});

describe('the manifest', () => {
  test('is valid and is what emitApi returned', () => {
    expect(buildManifestSchema.parse(JSON.parse(readText(MANIFEST_FILE)))).toEqual(manifest);
  });

  test('counts the records of every kind', () => {
    expect(manifest.counts).toEqual(contractCounts);
  });

  test('lists every API file, and no other; beside each are its .br and .gz variants, and nothing else', () => {
    expect(Object.keys(manifest.files).sort()).toEqual(apiFilePaths().sort());
    expect(tree(outDir).size).toBe(3 * Object.keys(manifest.files).length + Object.keys(manifest.index).length + 1);
  });

  test('lists every file of the suggestion index apart, without variants', () => {
    expect(indexFilePaths().length).toBeGreaterThan(kinds.length);
    expect(Object.keys(manifest.index).sort()).toEqual(indexFilePaths().sort());
  });

  test('gives every file and each of its variants its sha256 and size', () => {
    const digest = (bytes: Buffer | undefined) => ({
      sha256: createHash('sha256')
        .update(bytes ?? '')
        .digest('hex'),
      size: bytes?.length,
    });
    const files = tree(outDir);
    for (const path of apiFilePaths()) {
      expect({ path, ...manifest.files[path] }).toEqual({
        path,
        ...digest(files.get(path)),
        br: digest(files.get(compressedPath(path, 'br'))),
        gzip: digest(files.get(compressedPath(path, 'gzip'))),
      });
    }
    for (const path of indexFilePaths())
      expect({ path, ...manifest.index[path] }).toEqual({ path, ...digest(files.get(path)) });
  });
});

describe('compression at build time', () => {
  test('every br and gzip variant decodes to its file', () => {
    const files = tree(outDir);
    for (const path of apiFilePaths()) {
      const identity = files.get(path);
      expect({ path, br: brotliDecompressSync(files.get(compressedPath(path, 'br')) ?? Buffer.alloc(0)) }).toEqual({
        path,
        br: identity,
      });
      expect({ path, gzip: gunzipSync(files.get(compressedPath(path, 'gzip')) ?? Buffer.alloc(0)) }).toEqual({
        path,
        gzip: identity,
      });
    }
  });

  test('a list compresses to a fraction of its size: br smaller than gzip, both under half', () => {
    const { size, br, gzip } = manifest.files[listPath('trees')] ?? { size: 0, br: { size: 0 }, gzip: { size: 0 } };
    expect(br.size).toBeLessThan(gzip.size);
    expect(gzip.size).toBeLessThan(size / 2);
  });

  test("the edge's fixed error bodies are files too, byte for byte the contract's", () => {
    for (const { name, body } of FIXED_BODIES) expect(readText(fixedBodyPath(name))).toBe(body);
    expect(apiFilePaths().filter((path) => path.startsWith(`${API_DIR}/_edge/`))).toHaveLength(FIXED_BODIES.length);
  });
});

test('two builds of the same content give byte-identical output', async () => {
  const again = mkdtempSync(join(tmpdir(), 'treefarm-api-again-'));
  try {
    await emitApi(loadContent(join(projectDir, 'content')), again);
    expect(tree(again)).toEqual(tree(outDir));
  } finally {
    rmSync(again, { recursive: true, force: true });
  }
});
