// The bundles' CSV files (csv/<kind>.csv), read from the archive the build wrote: strict
// RFC 4180 in UTF-8, the columns of the database's table, and every value what the API
// answers (the offline client over the same archive).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { csvField, csvFiles } from '../../src/build/csv.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { readArchive, type ArchiveFiles } from '../../src/client/archive.ts';
import { openBundle, type BundleClient } from '../../src/client/bundle.ts';
import { bundleFileName, csvPath, SQLITE_FILE } from '../../src/contract/bundle-layout.ts';
import { kindById, kinds, type KindId } from '../../src/schema/kinds.ts';
import { minimalProject } from '../fixtures/minimal-content.ts';
import { distDir } from '../support/runtimes.ts';
import { openDatabase, pairFieldsOf, parseCsv, recordOfRow, rowsOf, type OpenedDatabase } from '../support/tabular.ts';

const content = loadContent(join(projectDir, 'content'));
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

let api: BundleClient;
let files: ArchiveFiles;
let database: OpenedDatabase;
beforeAll(async () => {
  const archive = readFileSync(join(distDir, 'downloads', bundleFileName(content.version, 'tar.gz')));
  files = await readArchive(archive);
  database = openDatabase(files.get(SQLITE_FILE) ?? new Uint8Array());
  api = await openBundle(archive);
});
afterAll(() => database?.close());

const textOf = (kind: KindId) => utf8.decode(files.get(csvPath(kind)));
const tableColumns = (kind: KindId) =>
  rowsOf(database.db, `PRAGMA table_info("${kind}")`).map((column) => ({
    name: String(column.name),
    integer: column.type === 'INTEGER',
  }));
/** Whether the kind's records may have aliases (its content schema has them). */
const hasAliases = (kind: KindId) => 'aliases' in (kindById(kind)?.contentSchema.shape ?? {});

/** The rows of a kind's file as objects by header, integer columns of the table read back as numbers. */
function csvRecords(kind: KindId): Record<string, unknown>[] {
  const [header = [], ...rows] = parseCsv(textOf(kind));
  const integers = new Set(tableColumns(kind).flatMap((column) => (column.integer ? [column.name] : [])));
  return rows.map((row) =>
    Object.fromEntries(
      header.map((column, index) => {
        const text = row[index] ?? '';
        if (!integers.has(column)) return [column, text];
        expect({ column, text, digits: /^(0|[1-9]\d*)$/.test(text) }).toEqual({ column, text, digits: true });
        return [column, Number(text)];
      }),
    ),
  );
}

describe('RFC 4180', () => {
  test('a field with a comma, a quote, a CR or a LF is quoted, its quotes doubled; any other field as it is', () => {
    expect(csvField('Oak Tree')).toBe('Oak Tree');
    expect(csvField(23619637994)).toBe('23619637994');
    expect(csvField('Europe, Asia')).toBe('"Europe, Asia"');
    expect(csvField('the "King"')).toBe('"the ""King"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('a\rb')).toBe('"a\rb"');
    expect(csvField('')).toBe('');
  });

  test('each file is a header row, then one row per record, every row ended by CRLF, UTF-8 with no BOM', async () => {
    for (const kind of kinds) {
      const bytes = files.get(csvPath(kind.id)) ?? new Uint8Array();
      expect([...bytes.subarray(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
      const rows = parseCsv(textOf(kind.id));
      const records = await api[kind.id]();
      expect(rows.length).toBe(records.length + 1);
      for (const row of rows) expect(row.length).toBe(rows[0]?.length);
    }
  });

  test('a text with commas, quotes, line breaks and letters beyond ASCII comes back exactly', () => {
    const project = minimalProject();
    try {
      const funfact = 'It is "the oak", they say,\r\nand ʻŌhiʻa too.';
      project.patch('trees/oak-tree.yaml', { name: 'Ōhiʻa Lehua', funfact });
      const [trees] = csvFiles(loadContent(project.contentDir));
      const [header = [], ...rows] = parseCsv(utf8.decode(trees?.bytes));
      const oak = rows.find((row) => row[header.indexOf('slug')] === 'oak-tree') ?? [];
      expect([oak[header.indexOf('name')], oak[header.indexOf('funfact')]]).toEqual(['Ōhiʻa Lehua', funfact]);
    } finally {
      project.remove();
    }
  });
});

test('the columns are those of the kind’s table in the database, then aliases where the kind has them', () => {
  for (const kind of kinds) {
    const [header] = parseCsv(textOf(kind.id));
    const expected = [
      ...tableColumns(kind.id).map((column) => column.name),
      ...(hasAliases(kind.id) ? ['aliases'] : []),
    ];
    expect({ kind: kind.id, header }).toEqual({ kind: kind.id, header: expected });
  }
});

test('every field of every record equals the API’s answer, rows in list order, integers exact', async () => {
  for (const kind of kinds) {
    const records = await api[kind.id]();
    const rows = csvRecords(kind.id).map((row) => recordOfRow(row, pairFieldsOf(records), ['slug', 'aliases']));
    expect(rows.map((row) => JSON.stringify(row))).toEqual(records.map((record) => JSON.stringify(record)));
  }
  const largest = Math.max(...csvRecords('trees').map((row) => Number(row.upgradeCost)));
  expect(largest).toBeGreaterThan(2 ** 31);
  expect(textOf('trees')).toContain(`,${largest},`);
});

test('aliases is a JSON array of the names the API finds the record by ([] for none)', async () => {
  let aliasCount = 0;
  for (const kind of kinds.filter((one) => hasAliases(one.id))) {
    for (const row of csvRecords(kind.id)) {
      const aliases = JSON.parse(String(row.aliases)) as string[];
      aliasCount += aliases.length;
      for (const alias of aliases) {
        const found = (await api[kind.id](alias)) as { name?: string }[];
        expect({ alias, found: found.map((record) => record.name) }).toEqual({ alias, found: [row.name] });
      }
    }
  }
  expect(aliasCount).toBeGreaterThan(0);
});
