// The API built from the real content/ (loadContent + emitApi, without Astro) against the
// game's published figures in test/fixtures/published and the envelopes of the API contract.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emitApi } from '../../src/build/api.ts';
import { loadContent } from '../../src/build/content.ts';
import {
  API_DIR,
  levelPath,
  listPath,
  MANIFEST_FILE,
  namePath,
  notFoundPath,
  queryPath,
} from '../../src/contract/paths.ts';
import { searchKey } from '../../src/contract/search-key.ts';
import { parseSearch } from '../../src/contract/search-query.ts';
import { kinds, type Kind } from '../../src/schema/kinds.ts';
import { manifestSchema, type Manifest } from '../../src/schema/manifest.ts';

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
let manifest: Manifest;
beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'treefarm-api-'));
  manifest = emitApi(loadContent(join(projectDir, 'content')), outDir);
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

const apiEnvelopePaths = () => [...tree(outDir).keys()].filter((path) => path.startsWith(`${API_DIR}/`));

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
      `{"error":true,"message":"The requested ${kind.noun} could not be found with the provided query. Please check the name or ID and try again."}`,
    );
  });

  test('every emitted envelope is a success with the contract message and published records, in list order', () => {
    const listed = readEnvelope(listPath(kind.id)).data ?? [];
    // The suggestion index has answers of its own (test/edge/suggest-contract.test.ts).
    const envelopes = apiEnvelopePaths().filter(
      (path) =>
        path.startsWith(`${API_DIR}/${kind.id}/`) &&
        !path.startsWith(`${API_DIR}/${kind.id}/suggest/`) &&
        path !== notFoundPath(kind.id),
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
          const path = queryPath(kind.id, parseSearch(spelling));
          expect(path).toBe(namePath(kind.id, searchKey(name)));
          expect(readEnvelope(path ?? '').data?.map(published)).toEqual([figures(record)]);
        }
      }
    }
  });
});

test('a tree is found by the alias its content gives: the species spelling of a misspelled name', () => {
  const path = queryPath('trees', parseSearch('Croton Megalocarpus'));
  expect(path).toBe(namePath('trees', 'crotonmegalocarpus'));
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
    expect(manifestSchema.parse(JSON.parse(readText(MANIFEST_FILE)))).toEqual(manifest);
  });

  test('counts the records of every kind', () => {
    expect(manifest.counts).toEqual(contractCounts);
  });

  test('lists every API file, and no other', () => {
    expect(Object.keys(manifest.files).sort()).toEqual(apiEnvelopePaths().sort());
    expect(tree(outDir).size).toBe(Object.keys(manifest.files).length + 1);
  });

  test('gives every file its sha256 and size', () => {
    for (const [path, bytes] of tree(outDir)) {
      if (path === MANIFEST_FILE) continue;
      expect({ path, ...manifest.files[path] }).toEqual({
        path,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: bytes.length,
      });
    }
  });
});

test('two builds of the same content give byte-identical output', () => {
  const again = mkdtempSync(join(tmpdir(), 'treefarm-api-again-'));
  try {
    emitApi(loadContent(join(projectDir, 'content')), again);
    expect(tree(again)).toEqual(tree(outDir));
  } finally {
    rmSync(again, { recursive: true, force: true });
  }
});
