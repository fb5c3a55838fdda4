// Tool schemas as every MCP client reads them (the Inspector's --strict check): zod writes a
// nullable field as a type array (`type: ["number", "null"]`) and an unknown one as `{}`,
// which some clients' validators and models' tool formats refuse. Here each type array
// becomes an anyOf of one type each, and each untyped schema the values it stands for.
import { isJsonObject } from '../../contract/json-object.ts';

type Schema = Record<string, unknown>;

/**
 * What an untyped schema stands for in the tools' outputs: the only ones are the `from` and
 * `to` of a release's changed fields (z.unknown), which hold a record's field value (text, a
 * number, a [min, max] range) or null where the field was absent.
 */
const FIELD_VALUE: readonly Schema[] = [
  { type: 'string' },
  { type: 'number' },
  { type: 'array', items: { type: 'number' } },
  { type: 'null' },
];

/** Keywords whose value is one schema, a list of schemas, or schemas by name. */
const ONE = ['items', 'additionalProperties', 'propertyNames', 'not', 'contains'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const BY_NAME = ['properties', 'definitions', '$defs', 'patternProperties'];
/** Keywords that give a schema its values without `type`. */
const TYPING = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref', 'not'];
/** Keywords that describe a schema rather than constrain its values: kept beside an anyOf. */
const ANNOTATIONS = ['$schema', 'title', 'description', 'default', 'examples'];

/** `schema` (a JSON Schema, not changed) with no type arrays and no untyped schema. */
export function portableSchema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) out[key] = portableKeyword(key, value);
  if (Array.isArray(out['type'])) return splitTypes(out);
  if (!TYPING.some((key) => key in out)) return { ...out, anyOf: FIELD_VALUE.map((each) => ({ ...each })) };
  return out;
}

function portableKeyword(key: string, value: unknown): unknown {
  if (ONE.includes(key) && isJsonObject(value)) return portableSchema(value);
  if (LIST.includes(key) && Array.isArray(value))
    return value.map((each) => (isJsonObject(each) ? portableSchema(each) : each));
  if (BY_NAME.includes(key) && isJsonObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([name, each]) => [name, isJsonObject(each) ? portableSchema(each) : each]),
    );
  return value;
}

/** A schema of several types as an anyOf, one branch a type, each with the keywords that apply to it. */
function splitTypes(schema: Schema): Schema {
  const kept: Schema = {};
  const rest: Schema = {};
  for (const [key, value] of Object.entries(schema))
    if (key !== 'type') (ANNOTATIONS.includes(key) ? kept : rest)[key] = value;
  const types = schema['type'] as string[];
  return { ...kept, anyOf: types.map((type) => (type === 'null' ? { type } : { type, ...rest })) };
}
