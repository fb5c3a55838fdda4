// The offline bundles' SQLite database (treefarm.sqlite), written by SQLite itself through
// Node's node:sqlite: a table per kind (the columns of columns.ts, rows in list order, the
// slug as primary key, indexes on level and name), the aliases, the data releases and what
// changed in each, field by field (what GET /api/releases answers), an FTS5 index of names
// and texts, and each column's unit and meaning. The same content gives the same bytes: the
// same statements in the same order, a fixed page size, a rollback journal (no WAL), no time
// written anywhere, and VACUUM last. Written to a temporary folder, then read whole.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { SQLITE_FILE } from '../contract/bundle-layout.ts';
import { kindIds, kinds } from '../schema/kinds.ts';
import type { NamedBytes } from './named-bytes.ts';
import { changesBetween } from './changes.ts';
import { aliasesOf, columnsOf, hasAliases, rowOf, SLUG_COLUMN, searchableContent } from './columns.ts';
import { type Content, countsOf } from './content.ts';
import type { Release } from './releases.ts';

/** PRAGMA user_version: the layout of the tables, raised when one changes shape. */
export const SQLITE_LAYOUT_VERSION = 1;
/** The FTS5 table of names, aliases and texts. */
export const SEARCH_TABLE = 'search';
const PAGE_SIZE = 4096;

/** An identifier, quoted for SQL. */
const id = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A value as SQLite gets it: integers as 64-bit integers (exact), lists as JSON text, absent as NULL. */
function sqlValue(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The database of the content (with its releases), as the bytes of a file. */
export function sqliteFile(content: Content, releases: readonly Release[] = []): NamedBytes {
  const dir = mkdtempSync(join(tmpdir(), 'treefarm-sqlite-'));
  try {
    const path = join(dir, SQLITE_FILE);
    const db = new DatabaseSync(path);
    try {
      writeDatabase(db, content, releases);
    } finally {
      db.close();
    }
    return { name: SQLITE_FILE, bytes: new Uint8Array(readFileSync(path)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeDatabase(db: DatabaseSync, content: Content, releases: readonly Release[]): void {
  // The page size before the first table. A rollback journal kept in memory (no WAL, no file
  // beside it), and no sync to disk: the file is a temporary one, read whole once written.
  db.exec(`PRAGMA page_size = ${PAGE_SIZE}; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;`);
  db.exec(`PRAGMA user_version = ${SQLITE_LAYOUT_VERSION}`);
  const searchable = searchableContent(content, releases);
  db.exec('BEGIN');
  writeAbout(db, content);
  writeKinds(db, searchable);
  writeFields(db);
  writeAliases(db, searchable);
  writeReleases(db, releases);
  writeSearch(db, searchable);
  db.exec('COMMIT');
  // One b-tree for the full-text index, then every table packed: no free pages, same bytes.
  db.exec(`INSERT INTO ${id(SEARCH_TABLE)} (${id(SEARCH_TABLE)}) VALUES ('optimize')`);
  db.exec('VACUUM');
}

function createTable(db: DatabaseSync, table: string, definitions: string[]): void {
  db.exec(`CREATE TABLE ${id(table)} (\n  ${definitions.join(',\n  ')}\n)`);
}

function insertRows(db: DatabaseSync, table: string, columns: readonly string[], rows: Iterable<unknown[]>): void {
  const statement = db.prepare(
    `INSERT INTO ${id(table)} (${columns.map(id).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  for (const row of rows) statement.run(...row.map(sqlValue));
}

function writeAbout(db: DatabaseSync, content: Content): void {
  createTable(db, 'about', ['"key" TEXT NOT NULL PRIMARY KEY', '"value" TEXT NOT NULL']);
  insertRows(db, 'about', ['key', 'value'], [['version', content.version]]);
}

function writeKinds(db: DatabaseSync, content: Content): void {
  for (const kind of kinds) {
    const columns = columnsOf(kind);
    createTable(
      db,
      kind.id,
      columns.map(
        (column) =>
          `${id(column.name)} ${column.type.toUpperCase()} NOT NULL${column === SLUG_COLUMN ? ' PRIMARY KEY' : ''}`,
      ),
    );
    const unique = kind.uniqueLevels ? 'UNIQUE ' : '';
    db.exec(`CREATE ${unique}INDEX ${id(`${kind.id}_level`)} ON ${id(kind.id)} ("level")`);
    if (kind.named) db.exec(`CREATE UNIQUE INDEX ${id(`${kind.id}_name`)} ON ${id(kind.id)} ("name")`);
    insertRows(
      db,
      kind.id,
      columns.map((column) => column.name),
      content.entries[kind.id].map((entry) => rowOf(columns, entry)),
    );
  }
}

function writeFields(db: DatabaseSync): void {
  createTable(db, 'fields', [
    '"kind" TEXT NOT NULL',
    '"column_name" TEXT NOT NULL',
    '"position" INTEGER NOT NULL',
    '"field" TEXT',
    '"type" TEXT NOT NULL',
    '"unit" TEXT',
    '"description" TEXT NOT NULL',
    'PRIMARY KEY ("kind", "column_name")',
  ]);
  insertRows(
    db,
    'fields',
    ['kind', 'column_name', 'position', 'field', 'type', 'unit', 'description'],
    kinds.flatMap((kind) =>
      columnsOf(kind).map((column, index) => [
        kind.id,
        column.name,
        index + 1,
        column.field,
        column.type.toUpperCase(),
        column.unit,
        column.description,
      ]),
    ),
  );
}

function writeAliases(db: DatabaseSync, content: Content): void {
  createTable(db, 'aliases', [
    '"kind" TEXT NOT NULL',
    '"slug" TEXT NOT NULL',
    '"position" INTEGER NOT NULL',
    '"alias" TEXT NOT NULL',
    'PRIMARY KEY ("kind", "slug", "position")',
  ]);
  db.exec('CREATE INDEX "aliases_alias" ON "aliases" ("alias")');
  const rows = kinds
    .filter(hasAliases)
    .flatMap((kind) =>
      content.entries[kind.id].flatMap((entry) =>
        aliasesOf(entry).map((alias, index) => [kind.id, entry.slug, index + 1, alias]),
      ),
    );
  insertRows(db, 'aliases', ['kind', 'slug', 'position', 'alias'], rows);
}

function writeReleases(db: DatabaseSync, releases: readonly Release[]): void {
  const counts = kindIds.map((kind) => `${kind}_count`);
  createTable(db, 'releases', [
    '"id" TEXT NOT NULL PRIMARY KEY',
    '"number" INTEGER NOT NULL UNIQUE',
    '"date" TEXT NOT NULL',
    '"version" TEXT NOT NULL',
    '"notes" TEXT NOT NULL',
    ...counts.map((column) => `${id(column)} INTEGER NOT NULL`),
  ]);
  createTable(db, 'changes', [
    '"id" INTEGER PRIMARY KEY',
    '"release" TEXT NOT NULL REFERENCES "releases" ("id")',
    `"change" TEXT NOT NULL CHECK ("change" IN ('added', 'removed', 'changed'))`,
    '"kind" TEXT NOT NULL',
    '"slug" TEXT NOT NULL',
    '"name" TEXT',
    '"level" INTEGER NOT NULL',
    '"field" TEXT',
    '"from_value"',
    '"to_value"',
  ]);
  db.exec('CREATE INDEX "changes_release" ON "changes" ("release")');
  db.exec('CREATE INDEX "changes_record" ON "changes" ("kind", "slug")');
  // Newest first, as GET /api/releases lists them; `number` counts from the first release.
  const numbered = releases.map((release, index) => ({ release, number: index + 1, before: releases[index - 1] }));
  numbered.reverse();
  insertRows(
    db,
    'releases',
    ['id', 'number', 'date', 'version', 'notes', ...counts],
    numbered.map(({ release, number }) => {
      const count = countsOf(release.content);
      return [release.id, number, release.date, release.version, release.notes, ...kindIds.map((kind) => count[kind])];
    }),
  );
  insertRows(
    db,
    'changes',
    ['release', 'change', 'kind', 'slug', 'name', 'level', 'field', 'from_value', 'to_value'],
    numbered.flatMap(({ release, before }) => changeRows(release.id, changesBetween(before?.content, release.content))),
  );
}

/** A release's changes, one row per added or removed record and per changed field, in the API's order. */
function changeRows(release: string, changes: ReturnType<typeof changesBetween>): unknown[][] {
  const record = ({ kind, slug, name, level }: { kind: string; slug: string; name?: string; level: number }) => [
    kind,
    slug,
    name,
    level,
  ];
  return [
    ...changes.added.map((ref) => [release, 'added', ...record(ref), null, null, null]),
    ...changes.removed.map((ref) => [release, 'removed', ...record(ref), null, null, null]),
    ...changes.changed.flatMap((change) =>
      Object.entries(change.fields).map(([field, { from, to }]) => [
        release,
        'changed',
        ...record(change),
        field,
        from,
        to,
      ]),
    ),
  ];
}

/** The text columns of the full-text index: names, aliases, then every other text field of a kind. */
export function searchColumns(): string[] {
  const texts = kinds.flatMap((kind) =>
    columnsOf(kind)
      .filter((column) => column.type === 'text' && column.field !== null && column.name !== 'name')
      .map((column) => column.name),
  );
  return ['name', 'aliases', ...new Set(texts)];
}

function writeSearch(db: DatabaseSync, content: Content): void {
  const texts = searchColumns();
  db.exec(
    `CREATE VIRTUAL TABLE ${id(SEARCH_TABLE)} USING fts5(\n  "kind" UNINDEXED,\n  "slug" UNINDEXED,\n  ` +
      `${texts.map(id).join(',\n  ')},\n  tokenize = 'unicode61 remove_diacritics 2'\n)`,
  );
  const rows = kinds
    .filter((kind) => kind.named)
    .flatMap((kind) =>
      content.entries[kind.id].map((entry) => {
        const record = entry.record as Record<string, unknown>;
        const aliases = aliasesOf(entry).join('\n') || null;
        return [kind.id, entry.slug, ...texts.map((column) => (column === 'aliases' ? aliases : record[column]))];
      }),
    );
  insertRows(db, SEARCH_TABLE, ['kind', 'slug', ...texts], rows);
}
