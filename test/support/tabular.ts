// Reading the bundles' database and CSV files the way their users do, to compare them with
// the API: the database opened read-only from a file, the CSV parsed by a strict RFC 4180
// reader, and rows turned back into API records (pairs joined).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { z } from 'zod';
import { createDownloads } from '../../src/build/bundles.ts';
import type { Content } from '../../src/build/content.ts';
import type { Release } from '../../src/build/releases.ts';
import { readArchive, type ArchiveFiles } from '../../src/client/archive.ts';
import { openBundle, type BundleClient } from '../../src/client/bundle.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { kindById, kindIds } from '../../src/schema/kinds.ts';
import { temporaryFolder } from './temporary-folders.ts';

export interface OpenedDatabase {
  db: DatabaseSync;
  /** The database's file (in a temp folder of its own). */
  path: string;
  close(): void;
}

/** The database bytes as a file, opened read-only, as a reader of the bundle would. */
export function openDatabase(bytes: Uint8Array): OpenedDatabase {
  const dir = temporaryFolder('treefarm-sqlite-test-');
  const path = join(dir, 'treefarm.sqlite');
  writeFileSync(path, bytes);
  const db = new DatabaseSync(path, { readOnly: true });
  return {
    db,
    path,
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The API record of a row: columns named `<field>_min` / `<field>_max` joined into a pair; `skip` left out. */
export function recordOfRow(row: Record<string, unknown>, pairs: ReadonlySet<string>, skip: readonly string[]) {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (skip.includes(column)) continue;
    const pair = /^(.+)_(min|max)$/.exec(column);
    const field = pair?.[1];
    if (field === undefined || !pairs.has(field)) {
      record[column] = value;
      continue;
    }
    const ends = (record[field] ?? []) as unknown[];
    ends[pair?.[2] === 'min' ? 0 : 1] = value;
    record[field] = ends;
  }
  return record;
}

/** The fields of API records that are [min, max] pairs. */
export const pairFieldsOf = (records: readonly object[]): Set<string> =>
  new Set(
    records.flatMap((record) =>
      Object.entries(record).flatMap(([field, value]) => (Array.isArray(value) ? [field] : [])),
    ),
  );

/**
 * A strict RFC 4180 reader: records end with CRLF (the last one too), a field is quoted when
 * it holds a comma, a quote, a CR or a LF, and a quote inside is doubled. Anything else throws.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  while (at < text.length) {
    let field = '';
    if (text[at] === '"') {
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) throw new Error(`an unclosed quote at ${at}`);
        field += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        field += '"';
        at++;
      }
    } else {
      const end = text.slice(at).search(/[,\r\n"]/);
      field = end < 0 ? text.slice(at) : text.slice(at, at + end);
      at = end < 0 ? text.length : at + end;
      if (text[at] === '"') throw new Error(`a quote inside an unquoted field at ${at}`);
    }
    row.push(field);
    if (text[at] === ',') at++;
    else if (text.startsWith('\r\n', at)) {
      rows.push(row);
      row = [];
      at += 2;
    } else throw new Error(`expected a comma or CRLF at ${at}, got ${JSON.stringify(text.slice(at, at + 10))}`);
  }
  if (row.length > 0) throw new Error('the last record does not end with CRLF');
  return rows;
}

export interface MadeBundle {
  files: ArchiveFiles;
  client: BundleClient;
}

/** The tar.gz bundle the build makes of a content and its releases: its files, and the offline client over it. */
export async function bundleOf(content: Content, releases: readonly Release[]): Promise<MadeBundle> {
  const downloads = await createDownloads(content, releases);
  const archive = downloads.find((file) => file.name === bundleFileName(content.version, 'tar.gz'))?.bytes;
  if (!archive) throw new Error('createDownloads made no tar.gz');
  return { files: await readArchive(archive), client: await openBundle(archive) };
}

type Row = Record<string, unknown>;

export const rowsOf = (db: DatabaseSync, sql: string, ...params: SQLInputValue[]): Row[] =>
  db.prepare(sql).all(...params) as Row[];

/** The list of releases as the database tells it, in the shape of GET /api/releases. */
export function releasesOf(db: DatabaseSync): unknown[] {
  const isList = (kind: string, field: string) => {
    const schema = (kindById(kind)?.contentSchema.shape as Record<string, z.ZodType> | undefined)?.[field];
    return schema !== undefined && z.toJSONSchema(schema, { unrepresentable: 'any' }).type === 'array';
  };
  const value = (kind: string, field: string, stored: unknown) =>
    typeof stored === 'string' && isList(kind, field) ? JSON.parse(stored) : stored;
  const ref = (row: Row) => ({ kind: row.kind, ...(row.name === null ? {} : { name: row.name }), level: row.level });
  return rowsOf(db, 'SELECT * FROM "releases" ORDER BY "number" DESC').map((release) => {
    const rows = rowsOf(db, 'SELECT * FROM "changes" WHERE "release" = ? ORDER BY "id"', String(release.id));
    const changed: (Row & { fields: Row })[] = [];
    let last: Row | undefined;
    for (const row of rows.filter((one) => one.change === 'changed')) {
      if (last?.kind !== row.kind || last?.slug !== row.slug) changed.push({ ...ref(row), fields: {} });
      const fields = changed.at(-1)?.fields ?? {};
      const [kind, field] = [String(row.kind), String(row.field)];
      fields[field] = { from: value(kind, field, row.from_value), to: value(kind, field, row.to_value) };
      last = row;
    }
    return {
      id: release.id,
      date: release.date,
      version: release.version,
      notes: release.notes,
      counts: Object.fromEntries(kindIds.map((kind) => [kind, release[`${kind}_count`]])),
      changes: {
        added: rows.filter((row) => row.change === 'added').map(ref),
        removed: rows.filter((row) => row.change === 'removed').map(ref),
        changed,
      },
    };
  });
}
