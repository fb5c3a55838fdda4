// The flat columns of a kind, shared by the offline database's tables and the CSV files:
// the API fields in the API's order, a [min, max] pair as `<field>_min` and `<field>_max`,
// each typed from the record's JSON Schema (made from the zod schemas), with its unit and
// meaning; then the record's slug. Values keep their type: integers stay exact integers.
import type { z } from 'zod';
import { unitOf } from '../schema/fields.ts';
import { apiFields, type Kind } from '../schema/kinds.ts';
import type { Content, ContentEntry } from './content.ts';
import { recordJsonSchema } from './json-schemas.ts';
import { withFormerNames, type Release } from './releases.ts';

export type ColumnType = 'integer' | 'text';

export interface Column {
  /** The column's name: the field's, or `<field>_min` / `<field>_max` for a pair. */
  name: string;
  /** The API field it holds (all of it, or one end of a pair); null for the slug. */
  field: string | null;
  /** For a pair, which end: 0 (min) or 1 (max). */
  part?: 0 | 1;
  type: ColumnType;
  unit: string | null;
  description: string;
}

interface JsonSchema {
  type?: string;
  description?: string;
  prefixItems?: JsonSchema[];
}

export const PAIR_ENDS = ['min', 'max'] as const;

export const SLUG_COLUMN: Column = {
  name: 'slug',
  field: null,
  type: 'text',
  unit: null,
  description:
    "The record's id: its content file's name and its wiki page (/<kind>/<slug>/); " +
    'it stays when the record is renamed.',
};

const scalarTypes: Record<string, ColumnType> = { integer: 'integer', string: 'text' };

/** The columns of a kind's table: its API fields in order (pairs as two), then the slug. */
export function columnsOf(kind: Kind): Column[] {
  const properties = (recordJsonSchema(kind).properties ?? {}) as Record<string, JsonSchema>;
  const shape = kind.schema.shape as Record<string, z.ZodType>;
  const fieldColumns = apiFields(kind).flatMap((field): Column[] => {
    const schema = properties[field] ?? {};
    const unit = unitOf(shape[field] as z.ZodType) ?? null;
    const description = schema.description ?? '';
    const type = scalarTypes[schema.type ?? ''];
    if (type) return [{ name: field, field, type, unit, description }];
    const ends = schema.type === 'array' ? (schema.prefixItems ?? []).map((item) => scalarTypes[item.type ?? '']) : [];
    const [low, high] = ends;
    if (ends.length === 2 && low && high)
      return [low, high].map((endType, part) => ({
        name: `${field}_${PAIR_ENDS[part]}`,
        field,
        part: part as 0 | 1,
        type: endType,
        unit,
        description: `The ${PAIR_ENDS[part]} of ${field}: ${description}`,
      }));
    throw new Error(
      `${kind.id}.${field}: no table column for its JSON Schema ${JSON.stringify(schema)}; ` +
        'columns are integers, text or [min, max] pairs of them (src/build/columns.ts)',
    );
  });
  return [...fieldColumns, SLUG_COLUMN];
}

/** One record's values, column by column. */
export function rowOf(columns: readonly Column[], entry: ContentEntry): (string | number)[] {
  const record = entry.record as Record<string, unknown>;
  return columns.map((column) => {
    if (column.field === null) return entry.slug;
    const value = record[column.field];
    return (column.part === undefined ? value : (value as unknown[])[column.part]) as string | number;
  });
}

/** Whether a kind's records have aliases (other names a search finds them by). */
export const hasAliases = (kind: Kind): boolean => 'aliases' in kind.contentSchema.shape;

/** A record's aliases: its own, then the names it was released under before (as the API finds it). */
export const aliasesOf = (entry: ContentEntry): string[] => ('aliases' in entry.data ? (entry.data.aliases ?? []) : []);

/** The content as the API answers it: each record with its former names among its aliases. */
export const searchableContent = (content: Content, releases: readonly Release[]): Content =>
  withFormerNames(
    content,
    releases.map((release) => release.content),
  );
