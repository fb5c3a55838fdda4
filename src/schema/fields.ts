// Field builders shared by every record kind. Each carries its own error text, so a content
// error says what was expected in words a content editor understands. They are plain zod
// types (no transforms), so the same schemas also yield JSON Schema and OpenAPI.
import { z } from 'zod';

/** A short description of a value as it appeared in a content file. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return `${value} (past 2^53, so not exact)`;
    return String(value);
  }
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping of fields';
  return `${typeof value} ${String(value)}`;
}

/** An error function for zod: "missing: expected X" or "expected X, got Y". */
export function expected(what: string) {
  return (issue: { input?: unknown }): string =>
    issue.input === undefined ? `missing: expected ${what}` : `expected ${what}, got ${describeValue(issue.input)}`;
}

/** A whole number from `min` to `max` (at most 2^53 - 1, so every value stays exact). */
export function wholeNumber(min = 0, max = Number.MAX_SAFE_INTEGER) {
  const bound = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}, below 2^53` : `from ${min} to ${max}`;
  const error = expected(`a whole number ${bound} (digits only, no quotes or decimals)`);
  return z.int({ error }).min(min, { error }).max(max, { error });
}

/** A [min, max] pair of whole numbers; `strict` demands min < max rather than min <= max. */
export function range(min = 0, max = Number.MAX_SAFE_INTEGER, strict = false) {
  const what = `a pair [min, max] with min ${strict ? '<' : '<='} max`;
  const element = wholeNumber(min, max);
  return z
    .tuple([element, element], { error: expected(what) })
    .refine(([low, high]) => (strict ? low < high : low <= high), {
      error: (issue) => `expected ${what}, got [${(issue.input as number[]).join(', ')}]`,
    });
}

/** Non-empty text with no white space around it (names, regions, fun facts). */
export function text(what = 'text') {
  const error = expected(`non-empty ${what} with no spaces around it`);
  return z
    .string({ error })
    .min(1, { error })
    .regex(/^\S(?:[\s\S]*\S)?$/, { error });
}

/**
 * The unit of each measured field ("seconds", "in-game dollars"). Kept in a registry of our
 * own, not in the JSON Schema: the database's table of fields reads it (src/build/columns.ts).
 */
export const fieldUnits = z.registry<{ unit: string }>();

/** A field with its meaning (its description in JSON Schema and OpenAPI) and its unit. */
export function measured<Schema extends z.ZodType>(schema: Schema, unit: string, meaning: string): Schema {
  const described = schema.describe(meaning);
  fieldUnits.add(described, { unit });
  return described;
}

/** The unit of a field, if it is measured in one. */
export const unitOf = (schema: z.ZodType): string | undefined => fieldUnits.get(schema)?.unit;
