// JSON Schema (2020-12) of each record kind, generated from the zod schemas in
// src/schema/records.ts: the files published at /schemas/<kind>.json and in the bundles.
import { z } from 'zod';
import { schemaPath } from '../contract/build-files.ts';
import { kinds, recordTitle, type Kind } from '../schema/kinds.ts';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The JSON Schema of one API record of `kind`, without `$schema` (for embedding). */
export function recordJsonSchema(kind: Kind): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(kind.schema, { target: 'draft-2020-12' });
  return {
    title: recordTitle(kind),
    description: `One ${kind.noun} record exactly as the API serves it: these fields, in this order, and no others.`,
    ...schema,
  };
}

/** The standalone schema file of a kind. */
export function recordSchemaFile(kind: Kind): string {
  return `${JSON.stringify({ $schema: JSON_SCHEMA_DIALECT, ...recordJsonSchema(kind) }, null, 2)}\n`;
}

/** Every schema file, by its path below dist/ (and below the bundle root). */
export function jsonSchemaFiles(): { path: string; body: string }[] {
  return kinds.map((kind) => ({ path: schemaPath(kind.id), body: recordSchemaFile(kind) }));
}
