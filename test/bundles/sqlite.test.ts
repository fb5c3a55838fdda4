// The bundles' SQLite database (treefarm.sqlite), read from the archive the build wrote: a
// table per kind with the API's fields, aliases, releases and their changes, full-text search
// and each column's unit and meaning; every value what the API answers (the offline client
// over the same archive), and the same bytes from every build.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQLInputValue } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { loadReleases } from '../../src/build/releases.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { SQLITE_LAYOUT_VERSION, sqliteFile } from '../../src/build/sqlite.ts';
import { readArchive } from '../../src/client/archive.ts';
import { openBundle, type BundleClient } from '../../src/client/bundle.ts';
import { bundleFileName, SQLITE_FILE } from '../../src/contract/bundle-layout.ts';
import { kinds, type KindId } from '../../src/schema/kinds.ts';
import { distDir } from '../support/runtimes.ts';
import {
  openDatabase,
  pairFieldsOf,
  recordOfRow,
  releasesOf,
  rowsOf,
  type OpenedDatabase,
} from '../support/tabular.ts';

const content = loadContent(join(projectDir, 'content'));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let api: BundleClient;
let database: OpenedDatabase;
let bytes: Uint8Array;
beforeAll(async () => {
  const archive = readFileSync(join(distDir, 'downloads', bundleFileName(content.version, 'tar.gz')));
  const file = (await readArchive(archive)).get(SQLITE_FILE);
  if (!file) throw new Error(`the built bundle holds no ${SQLITE_FILE}`);
  bytes = file;
  database = openDatabase(bytes);
  api = await openBundle(archive);
});
afterAll(() => database?.close());

const all = (sql: string, ...params: SQLInputValue[]) => rowsOf(database.db, sql, ...params);
const recordsOf = (kind: KindId) => api[kind]() as Promise<object[]>;

describe('a table per kind', () => {
  test('holds the API fields in API order, typed, a pair as <field>_min and <field>_max, then the slug', async () => {
    for (const kind of kinds) {
      const [first = {}] = await recordsOf(kind.id);
      const expected = Object.entries(first).flatMap(([field, value]) =>
        Array.isArray(value)
          ? [`${field}_min INTEGER`, `${field}_max INTEGER`]
          : [`${field} ${typeof value === 'number' ? 'INTEGER' : 'TEXT'}`],
      );
      const columns = all(`PRAGMA table_info("${kind.id}")`).map((column) => `${column.name} ${column.type}`);
      expect({ kind: kind.id, columns }).toEqual({ kind: kind.id, columns: [...expected, 'slug TEXT'] });
    }
  });

  test('every field of every record equals the API’s answer, rows in the API’s list order', async () => {
    for (const kind of kinds) {
      const records = await recordsOf(kind.id);
      const rows = all(`SELECT * FROM "${kind.id}" ORDER BY rowid`);
      expect(records.length).toBeGreaterThan(0);
      // JSON text: the same values in the same key order.
      expect(rows.map((row) => JSON.stringify(recordOfRow(row, pairFieldsOf(records), ['slug'])))).toEqual(
        records.map((record) => JSON.stringify(record)),
      );
    }
  });

  test('integers are stored as SQLite integers, the largest figure (above 2^31) exactly', async () => {
    let largestInApi = 0;
    let largestInDatabase = 0n;
    for (const kind of kinds) {
      for (const record of await recordsOf(kind.id))
        for (const value of Object.values(record).flat())
          if (typeof value === 'number') largestInApi = Math.max(largestInApi, value);
      for (const { name } of all(`PRAGMA table_info("${kind.id}")`).filter((column) => column.type === 'INTEGER')) {
        const column = `"${String(name)}"`;
        expect(all(`SELECT count(*) AS n FROM "${kind.id}" WHERE typeof(${column}) <> 'integer'`)).toEqual([{ n: 0 }]);
        const largest = database.db.prepare(`SELECT max(${column}) AS value FROM "${kind.id}"`);
        largest.setReadBigInts(true);
        const { value } = largest.get() as { value: bigint };
        if (value > largestInDatabase) largestInDatabase = value;
      }
    }
    expect(largestInApi).toBeGreaterThan(2 ** 31);
    expect(largestInDatabase).toBe(BigInt(largestInApi));
  });

  test('the slug is the primary key; level is indexed (unique where a level holds one record), name is unique', () => {
    for (const kind of kinds) {
      const keys = all(`PRAGMA table_info("${kind.id}")`).filter((column) => Number(column.pk) > 0);
      expect({ kind: kind.id, keys: keys.map((column) => column.name) }).toEqual({ kind: kind.id, keys: ['slug'] });
      const indexes = all(`PRAGMA index_list("${kind.id}")`)
        .filter((index) => index.origin === 'c')
        .map((index) => ({
          columns: all(`PRAGMA index_info("${String(index.name)}")`).map((column) => column.name),
          unique: index.unique === 1,
        }))
        .sort((a, b) => String(a.columns).localeCompare(String(b.columns)));
      expect({ kind: kind.id, indexes }).toEqual({
        kind: kind.id,
        indexes: [
          { columns: ['level'], unique: kind.uniqueLevels },
          ...(kind.named ? [{ columns: ['name'], unique: true }] : []),
        ],
      });
    }
    const plan = all('EXPLAIN QUERY PLAN SELECT * FROM "trees" WHERE "name" = ?', 'Oak Tree');
    expect(plan.map((step) => step.detail).join('\n')).toContain('USING INDEX trees_name');
  });
});

test('aliases: each row is a name the API finds its record by', async () => {
  const rows = all('SELECT "kind", "slug", "alias" FROM "aliases" ORDER BY "kind", "slug", "position"');
  const written = kinds.flatMap((kind) =>
    content.entries[kind.id].flatMap((entry) => ('aliases' in entry.data ? (entry.data.aliases ?? []) : [])),
  );
  expect(rows.length).toBeGreaterThanOrEqual(written.length);
  expect(rows.map((row) => row.alias)).toEqual(expect.arrayContaining(written));
  for (const { kind, slug, alias } of rows) {
    const [record] = all(`SELECT "name" FROM "${String(kind)}" WHERE "slug" = ?`, String(slug));
    const found = (await api[kind as KindId](String(alias))) as { name?: string }[];
    expect({ alias, found: found.map((one) => one.name) }).toEqual({ alias, found: [record?.name] });
  }
});

test('releases and changes hold what GET /api/releases answers', async () => {
  const answered = await api.releases();
  expect(answered.length).toBeGreaterThan(0);
  expect(JSON.stringify(releasesOf(database.db))).toBe(JSON.stringify(answered));
});

test('search (FTS5) finds records by the words of their names, aliases and fun facts', async () => {
  const match = (query: string) =>
    all('SELECT "kind", "slug" FROM "search" WHERE "search" MATCH ? ORDER BY rank', query).map(
      (row) => `${row.kind}/${row.slug}`,
    );
  expect(match('acorns')).toContain('trees/oak-tree');
  expect(match('name:oak*')).toContain('trees/oak-tree');
  expect(match('aliases:"bread knife"')).toEqual(['cutters/knife']);
  for (const entry of content.entries.trees) {
    const word = /[A-Za-z]{4,}/.exec('funfact' in entry.data ? entry.data.funfact : '')?.[0] ?? '';
    expect({ word, found: match(`funfact:"${word}"`).includes(`trees/${entry.slug}`) }).toEqual({ word, found: true });
  }
  const named = kinds.filter((kind) => kind.named).reduce((sum, kind) => sum + content.entries[kind.id].length, 0);
  expect(all('SELECT count(*) AS n FROM "search"')).toEqual([{ n: named }]);
});

test('fields gives each column of each kind its type, unit and meaning, from the schemas', () => {
  for (const kind of kinds) {
    const rows = all('SELECT * FROM "fields" WHERE "kind" = ? ORDER BY "position"', kind.id);
    const columns = all(`PRAGMA table_info("${kind.id}")`);
    expect(rows.map((row) => [row.column_name, row.type])).toEqual(columns.map((column) => [column.name, column.type]));
    const published = JSON.parse(readFileSync(join(distDir, 'schemas', `${kind.id}.json`), 'utf8')) as {
      properties: Record<string, { description?: string }>;
    };
    for (const row of rows) {
      expect({ column: row.column_name, described: String(row.description).length > 10 }).toEqual({
        column: row.column_name,
        described: true,
      });
      const meaning = row.field === null ? undefined : published.properties[String(row.field)]?.description;
      if (row.field !== null) expect(row.description).toContain(meaning);
    }
  }
  const unit = (kind: string, column: string) =>
    all('SELECT "unit" FROM "fields" WHERE "kind" = ? AND "column_name" = ?', kind, column)[0]?.unit;
  expect(unit('trees', 'growthTime')).toBe('seconds');
  expect(unit('trees', 'upgradeCost')).toBe('in-game dollars');
  expect(unit('cutters', 'efficiency_max')).toBe('percent');
  expect(unit('gifts', 'logs_min')).toBe('logs');
  expect(unit('trees', 'name')).toBeNull();
});

describe('reproducible', () => {
  test('this process makes the database the build wrote, byte for byte', () => {
    expect(sha256(sqliteFile(content, loadReleases(projectDir)).bytes)).toBe(sha256(bytes));
  });

  test('a fixed page size, a rollback journal (no WAL), no free pages, the layout version; intact', () => {
    const header = Buffer.from(bytes.subarray(0, 100));
    expect(header.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    expect(header.readUInt16BE(16)).toBe(4096);
    expect([header[18], header[19]]).toEqual([1, 1]);
    expect(header.readUInt32BE(36)).toBe(0);
    expect(header.readUInt32BE(60)).toBe(SQLITE_LAYOUT_VERSION);
    expect(all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(all('PRAGMA foreign_key_check')).toEqual([]);
    expect(all('SELECT "value" FROM "about" WHERE "key" = ?', 'version')).toEqual([{ value: content.version }]);
  });
});
