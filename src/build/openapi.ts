// The OpenAPI 3.1 document of the API (/openapi.json and in the bundles). Record and envelope
// schemas come from the zod schemas, every message from src/contract/messages.ts, so the
// document describes exactly what the build writes and the edge sends.
import { z } from 'zod';
import {
  METHOD_NOT_ALLOWED_BODY,
  notFoundBody,
  successBody,
  suggestBody,
  TOKEN_INVALID_BODY,
  TOKEN_REQUIRED_BODY,
  UNKNOWN_ENDPOINT_BODY,
} from '../contract/messages.ts';
import {
  ALLOWED_METHODS,
  CACHE_ERROR,
  CACHE_FOUND,
  CHALLENGE_HEADERS,
  COMMON_HEADERS,
  PREFLIGHT_HEADERS,
} from '../contract/headers.ts';
import { MAX_SEARCH_LENGTH } from '../contract/search-query.ts';
import { NEAR_MIN_LENGTH, SUGGESTION_LIMIT, TWO_EDITS_MIN_LENGTH } from '../contract/suggest.ts';
import { kinds, kindTitle, recordTitle, type Kind } from '../schema/kinds.ts';
import { manifestSchema } from '../schema/manifest.ts';
import { JSON_SCHEMA_DIALECT, recordJsonSchema } from './json-schemas.ts';

export const OPENAPI_FILE = 'openapi.json';

type Json = Record<string, unknown>;

const messageOf = (body: string): string => (JSON.parse(body) as { message: string }).message;
const endpointOf = (kind: Kind) => `/api/${kind.id}`;
const suggestEndpointOf = (kind: Kind) => `${endpointOf(kind)}/suggest`;
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

// Component names.
const foundSchema = (kind: Kind) => `${kindTitle(kind.id)}Found`;
const notFoundSchema = (kind: Kind) => `${recordTitle(kind)}NotFound`;
const suggestionsSchema = (kind: Kind) => `${recordTitle(kind)}Suggestions`;
const AUTH_FAILED = 'AuthFailed';
const UNKNOWN_ENDPOINT = 'UnknownEndpoint';
const METHOD_NOT_ALLOWED = 'MethodNotAllowed';
const NOT_MODIFIED = 'NotModified';
const PREFLIGHT = 'Preflight';

function errorEnvelope(messages: readonly [string, ...string[]]) {
  return z.strictObject({ error: z.literal(true), message: z.literal(messages) });
}

/** A suggestion answer: the current name and level of each record (plots: level only). */
function suggestionsEnvelope(kind: Kind) {
  const { shape } = kind.schema;
  const entry =
    'name' in shape ? z.strictObject({ name: shape.name, level: shape.level }) : z.strictObject({ level: shape.level });
  return z.strictObject({
    error: z.literal(false),
    message: z.literal(messageOf(suggestBody(kind.noun, []))),
    data: z
      .array(entry)
      .max(SUGGESTION_LIMIT)
      .describe(`At most ${SUGGESTION_LIMIT}, one per record, best first; [] when nothing matches.`),
  });
}

/** Record and envelope schemas, generated together so envelopes refer to the records. */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const kind of kinds) {
    registry.add(kind.schema, { id: recordTitle(kind) });
    const found = z.strictObject({
      error: z.literal(false),
      message: z.literal(messageOf(successBody(kind.noun, []))),
      data: z.array(kind.schema).describe('Always an array, also for a single match; ordered by level.'),
    });
    registry.add(found, { id: foundSchema(kind) });
    registry.add(errorEnvelope([messageOf(notFoundBody(kind.noun))]), { id: notFoundSchema(kind) });
    registry.add(suggestionsEnvelope(kind), { id: suggestionsSchema(kind) });
  }
  registry.add(errorEnvelope([messageOf(TOKEN_REQUIRED_BODY), messageOf(TOKEN_INVALID_BODY)]), { id: AUTH_FAILED });
  registry.add(errorEnvelope([messageOf(UNKNOWN_ENDPOINT_BODY)]), { id: UNKNOWN_ENDPOINT });
  registry.add(errorEnvelope([messageOf(METHOD_NOT_ALLOWED_BODY)]), { id: METHOD_NOT_ALLOWED });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', uri: (id) => ref('schemas', id).$ref });
  // Components live inside this document: no dialect or $id of their own.
  const embedded = Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]);
  const records = kinds.map((kind) => [recordTitle(kind), recordJsonSchema(kind)]);
  return Object.fromEntries([...embedded, ...records]) as Record<string, Json>;
}

const headerSchema = (value: string) => ({ type: 'string', const: value });

function componentHeaders(version: string): Record<string, Json> {
  const { $schema: _dialect, ...versionSchema } = z.toJSONSchema(manifestSchema.shape.version);
  return {
    'X-Data-Version': {
      description:
        'The version of the content the response was built from: the same value as in the build manifest and the offline bundles.',
      schema: { ...versionSchema, examples: [version] },
    },
    ETag: {
      description: 'One per encoding of the body. Send it back in If-None-Match to get 304.',
      schema: { type: 'string' },
    },
    'Cache-Control': {
      description: `\`${CACHE_FOUND}\` on 200 and 304; \`${CACHE_ERROR}\` on errors.`,
      schema: { type: 'string', enum: [CACHE_FOUND, CACHE_ERROR] },
    },
    Vary: { description: 'The body depends on Accept-Encoding.', schema: headerSchema('Accept-Encoding') },
    'Content-Encoding': {
      description:
        '`br` or `gzip` when Accept-Encoding accepts it; absent for identity. The decoded body is byte for byte the same.',
      schema: { type: 'string', enum: ['br', 'gzip'] },
    },
    ...Object.fromEntries(
      Object.entries({ ...COMMON_HEADERS, ...CHALLENGE_HEADERS, Allow: ALLOWED_METHODS, ...PREFLIGHT_HEADERS }).map(
        ([name, value]) => [name, { schema: headerSchema(value) }],
      ),
    ),
    'Access-Control-Max-Age': {
      description: 'Seconds a preflight answer may be cached.',
      schema: headerSchema(PREFLIGHT_HEADERS['Access-Control-Max-Age']),
    },
  };
}

/** Headers on every /api/ response, plus `extra`. */
function headers(...extra: string[]): Json {
  const names = ['X-Data-Version', ...Object.keys(COMMON_HEADERS), ...extra];
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]));
}

const BODY_HEADERS = ['Content-Encoding', 'Vary', 'Cache-Control'];

function jsonResponse(description: string, schemaName: string, headerNames: string[], examples?: Json): Json {
  const media = { schema: ref('schemas', schemaName), ...(examples ? { examples } : {}) };
  return { description, headers: headers(...headerNames), content: { 'application/json': media } };
}

function exampleOf(body: string): Json {
  return { value: JSON.parse(body) as unknown };
}

/** Every response of the contract, by component name. */
function componentResponses(): Record<string, Json> {
  const responses: Record<string, Json> = {
    [AUTH_FAILED]: jsonResponse(
      'No token, or a token that is not configured. Checked before anything else about the request.',
      AUTH_FAILED,
      ['WWW-Authenticate', ...BODY_HEADERS],
      { missing: exampleOf(TOKEN_REQUIRED_BODY), invalid: exampleOf(TOKEN_INVALID_BODY) },
    ),
    [METHOD_NOT_ALLOWED]: jsonResponse(
      'Any method but GET, HEAD and OPTIONS.',
      METHOD_NOT_ALLOWED,
      ['Allow', ...BODY_HEADERS],
      {
        notAllowed: exampleOf(METHOD_NOT_ALLOWED_BODY),
      },
    ),
    [UNKNOWN_ENDPOINT]: jsonResponse(
      'Any other path below /api/, also a deeper one such as /api/trees/extra or /api/trees/suggest/extra, whatever the method.',
      UNKNOWN_ENDPOINT,
      BODY_HEADERS,
      { unknown: exampleOf(UNKNOWN_ENDPOINT_BODY) },
    ),
    [NOT_MODIFIED]: {
      description: 'If-None-Match named the ETag of this body: no body.',
      headers: headers('ETag', 'Cache-Control', 'Vary'),
    },
    [PREFLIGHT]: {
      description: 'CORS preflight answer; needs no token.',
      headers: headers('Access-Control-Allow-Methods', 'Access-Control-Allow-Headers', 'Access-Control-Max-Age'),
    },
  };
  for (const kind of kinds) {
    responses[foundSchema(kind)] = jsonResponse(`The matching ${kind.id}, ordered by level.`, foundSchema(kind), [
      'ETag',
      ...BODY_HEADERS,
    ]);
    responses[suggestionsSchema(kind)] = jsonResponse(
      `Up to ${SUGGESTION_LIMIT} ${kind.id} for a type-ahead box; [] when nothing matches.`,
      suggestionsSchema(kind),
      ['ETag', ...BODY_HEADERS],
      { oak: exampleOf(suggestBody(kind.noun, kind.named ? [{ name: 'Oak Tree', level: 69 }] : [{ level: 5 }])) },
    );
    responses[notFoundSchema(kind)] = jsonResponse(
      `No ${kind.noun} matches the search.`,
      notFoundSchema(kind),
      BODY_HEADERS,
      {
        notFound: exampleOf(notFoundBody(kind.noun)),
      },
    );
  }
  return responses;
}

/** HEAD: the same status and headers as GET, no body; a variant of each response with a body. */
function withHeadVariants(responses: Record<string, Json>): Record<string, Json> {
  const variants = Object.entries(responses)
    .filter(([, response]) => 'content' in response)
    .map(([name, { content: _body, ...rest }]) => [headVariant(name), rest]);
  return { ...responses, ...Object.fromEntries(variants) };
}

const headVariant = (name: string) => `${name}WithoutBody`;
const RESPONSES = withHeadVariants(componentResponses());

/** Responses by status, each a reference to a component response. */
function responsesOf(byStatus: Record<string, string>, method: 'get' | 'head' = 'get'): Json {
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, name]) => {
      const head = method === 'head' && headVariant(name) in RESPONSES;
      return [status, ref('responses', head ? headVariant(name) : name)];
    }),
  );
}

const getResponses = (kind: Kind) => ({
  '200': foundSchema(kind),
  '304': NOT_MODIFIED,
  '401': AUTH_FAILED,
  '404': notFoundSchema(kind),
});

const searchParameterName = (kind: Kind) => (kind.named ? 'search' : 'levelSearch');

function searchParameter(kind: Kind): Json {
  const rules = [
    'Selects records. Only the first `search` parameter counts; other query parameters are ignored.',
    'The value is decoded as URLSearchParams does (`+` is a space); let v be it with surrounding white space removed.',
    '1. Absent, v empty, or v `null` or `undefined` in any letter case: the whole list.',
    '2. v is ASCII digits only (`5`, `05`): every record of that level, in list order; none at that level is not found.',
    kind.named
      ? '3. Otherwise a name search: NFKD, combining marks removed, lower case, every character but a-z and 0-9 dropped; the one record whose name or earlier name (alias) has that key. An empty key or no match is not found.'
      : `3. Otherwise not found: ${kind.id} have no name, so they are looked up by level only.`,
    `4. v longer than ${MAX_SEARCH_LENGTH} characters: not found.`,
  ];
  const examples: Json = { whole: { value: '' }, level: { value: '1' } };
  if (kind.named)
    examples['name'] = { value: 'Oak Tree', summary: 'any letter case and punctuation: "oak-tree", "OAKTREE"' };
  return {
    name: 'search',
    in: 'query',
    required: false,
    description: rules.join('\n'),
    schema: { type: 'string' },
    examples,
  };
}

const suggestParameterName = (kind: Kind) => (kind.named ? 'suggestSearch' : 'suggestLevelSearch');

function suggestParameter(kind: Kind): Json {
  const rules = [
    'What the user typed so far. Only the first `search` parameter counts; v is it with surrounding white space removed.',
    `1. Absent, v empty, \`null\` or \`undefined\`: the first ${SUGGESTION_LIMIT} records in list order.`,
    '2. v all digits: the records whose level, written in decimal, starts with v, in list order (`6`: 6, 60 to 69, ...).',
    kind.named
      ? [
          '3. Otherwise, with k the search key of v (an empty key gives []), in this order of groups, each in list order,',
          'a record listed once at its first group: a. its name or an alias has the key k; b. its name key starts with k;',
          'c. a word of its name starts with k; d. an alias starts with k (the entry shows the current name);',
          `e. only when a to d are empty and k has ${NEAR_MIN_LENGTH} or more characters: a word or the whole name within`,
          `1 edit of k (2 edits from ${TWO_EDITS_MIN_LENGTH} characters), an edit inserting, deleting or replacing a character`,
          'or swapping two neighbours; nearer first, then list order.',
        ].join(' ')
      : `3. Otherwise []: ${kind.id} have no name.`,
    `4. v longer than ${MAX_SEARCH_LENGTH} characters: [].`,
  ];
  const examples: Json = { first: { value: '' }, level: { value: '6' } };
  if (kind.named) {
    examples['prefix'] = { value: 'oak', summary: 'Oak Tree, then every tree with a word starting "oak"' };
    examples['typo'] = { value: 'sequioa', summary: 'one swap away from Giant Sequoia' };
  }
  return {
    name: 'search',
    in: 'query',
    required: false,
    description: rules.join('\n'),
    schema: { type: 'string' },
    examples,
  };
}

const IF_NONE_MATCH = 'IfNoneMatch';

const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag from an earlier 200: 304 when it still matches.',
  schema: { type: 'string' },
};

function componentParameters(): Record<string, Json> {
  const searches = kinds.map((kind) => [searchParameterName(kind), searchParameter(kind)]);
  const suggests = kinds.map((kind) => [suggestParameterName(kind), suggestParameter(kind)]);
  return { ...Object.fromEntries(searches), ...Object.fromEntries(suggests), [IF_NONE_MATCH]: ifNoneMatch };
}

const REJECTED_METHODS = ['post', 'put', 'patch', 'delete'] as const;

interface PathSpec {
  /** The path below the API: /api/trees or /api/trees/suggest. */
  path: string;
  /** Prefix of the operation ids: "Trees", "TreeSuggestions". */
  name: string;
  parameter: string;
  summary: string;
  responses: Record<string, string>;
}

const listSpec = (kind: Kind): PathSpec => ({
  path: endpointOf(kind),
  name: kindTitle(kind.id),
  parameter: searchParameterName(kind),
  summary: `${kindTitle(kind.id)}: the whole list, one level${kind.named ? ', or one by name' : ''}`,
  responses: getResponses(kind),
});

const suggestSpec = (kind: Kind): PathSpec => ({
  path: suggestEndpointOf(kind),
  name: suggestionsSchema(kind),
  parameter: suggestParameterName(kind),
  summary: `${kindTitle(kind.id)}: up to ${SUGGESTION_LIMIT} suggestions for a type-ahead box (autocomplete, typos forgiven)`,
  responses: { '200': suggestionsSchema(kind), '304': NOT_MODIFIED, '401': AUTH_FAILED },
});

function kindPath(kind: Kind, spec: PathSpec): Json {
  const operation = (method: string, summary: string, responses: Json) => ({
    operationId: `${method}${spec.name}`,
    tags: [kind.id],
    summary,
    responses,
  });
  const rejected = REJECTED_METHODS.map((method) => [
    method,
    operation(
      method,
      'Not allowed: the API is read-only',
      responsesOf({ '401': AUTH_FAILED, '405': METHOD_NOT_ALLOWED }),
    ),
  ]);
  return {
    description: `The same endpoint with a trailing slash: \`${spec.path}/\`.`,
    parameters: [ref('parameters', spec.parameter), ref('parameters', IF_NONE_MATCH)],
    get: operation('get', spec.summary, responsesOf(spec.responses)),
    head: operation('head', 'As GET, without the body', responsesOf(spec.responses, 'head')),
    options: { ...operation('options', 'CORS preflight', responsesOf({ '204': PREFLIGHT })), security: [] },
    ...Object.fromEntries(rejected),
  };
}

function unknownPath(): Json {
  const byStatus = { '401': AUTH_FAILED, '404': UNKNOWN_ENDPOINT };
  const operation = (method: 'get' | 'head') => ({
    operationId: `${method}Unknown`,
    tags: ['errors'],
    summary: 'Not an endpoint',
    responses: responsesOf(byStatus, method),
  });
  return {
    parameters: [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
    get: operation('get'),
    head: operation('head'),
  };
}

const DESCRIPTION = `Read-only reference data of the tree-farming game: six endpoints, one per kind, under \`/api\`, each with
suggestions for type-ahead boxes below it (\`/api/trees/suggest\`).
A trailing slash is the same endpoint (\`/api/trees/\`). Methods: GET, HEAD (no body) and OPTIONS (CORS preflight, no token).

Every request but a preflight sends a token in the Authorization header, bare (\`Authorization: <token>\`) or as \`Authorization: Bearer <token>\` (scheme in any letter case).

Success is \`{"error": false, "message": ..., "data": [...]}\` (keys in that order); errors are \`{"error": true, "message": ...}\`.
Records carry exactly the fields of their schema, in that order. The same data is offered as offline bundles under /downloads/.`;

/** The OpenAPI document of the API built from content of the given data version. */
export function openApiDocument(version: string): Json {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: { title: 'Tree farm data API', version, description: DESCRIPTION },
    tags: [...kinds.map((kind) => ({ name: kind.id })), { name: 'errors' }],
    security: [{ apiToken: [] }],
    paths: {
      ...Object.fromEntries(kinds.map((kind) => [endpointOf(kind), kindPath(kind, listSpec(kind))])),
      ...Object.fromEntries(kinds.map((kind) => [suggestEndpointOf(kind), kindPath(kind, suggestSpec(kind))])),
      '/api/{path}': unknownPath(),
    },
    components: {
      securitySchemes: {
        apiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The token, bare or as `Bearer <token>` (scheme in any letter case).',
        },
      },
      schemas: componentSchemas(),
      parameters: componentParameters(),
      responses: RESPONSES,
      headers: componentHeaders(version),
    },
  };
}

export function openApiFile(version: string): string {
  return `${JSON.stringify(openApiDocument(version), null, 2)}\n`;
}
