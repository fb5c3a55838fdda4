// The offline bundles' CSV files, one per kind (csv/<kind>.csv): RFC 4180 (CRLF line ends; a
// field quoted when it holds a comma, a quote, a CR or a LF, its quotes doubled), UTF-8 without
// a byte order mark, a header row, then one row per record in list order. The columns are those
// of the kind's table in the database (columns.ts: pairs as `<field>_min` and `<field>_max`,
// then the slug); a kind with aliases ends with an `aliases` column: a JSON array of strings
// (`[]` for none), one cell that any JSON parser reads back exactly.
import { csvPath } from '../contract/bundle-layout.ts';
import { kinds } from '../schema/kinds.ts';
import type { NamedBytes } from './named-bytes.ts';
import { aliasesOf, columnsOf, hasAliases, rowOf, searchableContent } from './columns.ts';
import type { Content } from './content.ts';
import type { Release } from './releases.ts';

export const ALIASES_COLUMN = 'aliases';
const LINE_END = '\r\n';
const NEEDS_QUOTES = /[",\r\n]/;

/** One field of a row: as it is, or quoted with its quotes doubled. */
export function csvField(value: string | number): string {
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A row of fields, ended by CRLF. */
const csvRow = (fields: readonly (string | number)[]) => `${fields.map(csvField).join(',')}${LINE_END}`;

/** The CSV file of each kind, in registry order. */
export function csvFiles(content: Content, releases: readonly Release[] = []): NamedBytes[] {
  const searchable = searchableContent(content, releases);
  const encoder = new TextEncoder();
  return kinds.map((kind) => {
    const columns = columnsOf(kind);
    const aliases = hasAliases(kind);
    const header = [...columns.map((column) => column.name), ...(aliases ? [ALIASES_COLUMN] : [])];
    const rows = searchable.entries[kind.id].map((entry) =>
      csvRow([...rowOf(columns, entry), ...(aliases ? [JSON.stringify(aliasesOf(entry))] : [])]),
    );
    return { name: csvPath(kind.id), bytes: encoder.encode(csvRow(header) + rows.join('')) };
  });
}
