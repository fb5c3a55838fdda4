// What the CLI prints: records as an aligned table (one record as a list of its fields), or
// as JSON for scripts. Numbers are grouped (93,741), a table's column of numbers shows each with
// the same decimals (0.29, 1.50), ranges [min, max] read as "min–max",
// and long cells are cut in a table. Records come from a bundle or the API: every cell and
// field name is made printable (src/client/terminal.ts), so none can command the terminal.
import { escapedJson, printableLine } from '../terminal.ts';

type Row = ReadonlyMap<string, unknown>;

const MAX_CELL = 48;

const number = (value: number) => value.toLocaleString('en-US');
/** How many decimals `number` shows a value with (at most three). */
const decimalsOf = (value: number) => (number(value).split('.')[1] ?? '').length;
/** A column's number with exactly `decimals` decimals, so a column's decimal points line up. */
const fixed = (value: number, decimals: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });

const isRange = (value: unknown): value is [number, number] =>
  Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'number');

export const cell = (value: unknown): string => printableLine(text(value));

function text(value: unknown): string {
  if (isRange(value)) return `${number(value[0])}–${number(value[1])}`;
  if (typeof value === 'number') return number(value);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

const cut = (text: string) => (text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text);

/** Columns in the order of the first record's keys, then any key a later record adds. */
function columnsOf(rows: readonly Row[]): string[] {
  return [...new Set(rows.flatMap((row) => [...row.keys()]))];
}

/**
 * One record: "field  value" per line, nothing cut. Several, or any number with `rows`: a
 * table under a header line.
 */
export function formatTable(records: readonly unknown[], { rows: asRows = false } = {}): string {
  const rows: Row[] = records.map(
    (record) => new Map(Object.entries(record ?? {}).map(([key, value]) => [printableLine(key), value])),
  );
  const [only] = rows;
  if (rows.length === 1 && only && !asRows) {
    const width = Math.max(...[...only.keys()].map((key) => key.length));
    return [...only].map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`).join('\n');
  }
  const columns = columnsOf(rows);
  // Numbers line up on the right, as in a spreadsheet, each column with one number of decimals.
  // A column is numbers when every cell is one, or empty (the first tree's upgrade payback).
  const numeric = columns.map((column) =>
    rows.every((row) => typeof row.get(column) === 'number' || row.get(column) === null || !row.has(column)),
  );
  const decimals = columns.map((column, index) =>
    numeric[index] ? Math.max(0, ...rows.map((row) => decimalsOf(Number(row.get(column) ?? 0)))) : 0,
  );
  const cells = rows.map((row) =>
    columns.map((column, index) => {
      const value = row.get(column);
      return cut(numeric[index] && typeof value === 'number' ? fixed(value, decimals[index] ?? 0) : cell(value));
    }),
  );
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((line) => line[index]?.length ?? 0)),
  );
  const pad = (value: string, index: number) =>
    numeric[index] ? value.padStart(widths[index] ?? 0) : value.padEnd(widths[index] ?? 0);
  const line = (values: string[]) => values.map(pad).join('  ').trimEnd();
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

export const formatJson = (data: unknown): string => escapedJson(JSON.stringify(data, null, 2));
