// The OpenAPI 3.1 document of the API (/openapi.json and in the bundles). Record and envelope
// schemas come from the zod schemas, every message from src/contract/messages.ts, so the
// document describes exactly what the build writes and the edge sends.
import { z } from 'zod';
import {
  METHOD_NOT_ALLOWED_BODY,
  notFoundBody,
  successBody,
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
import { LOCAL_ORIGIN } from '../contract/paths.ts';
import { MAX_SEARCH_LENGTH } from '../contract/search-query.ts';
import { apiFields, kinds, kindTitle, recordTitle, type Kind } from '../schema/kinds.ts';
import { manifestSchema } from '../schema/manifest.ts';
import { JSON_SCHEMA_DIALECT, recordJsonSchema } from './json-schemas.ts';

export const OPENAPI_FILE = 'openapi.json';

type Json = Record<string, unknown>;

const messageOf = (body: string): string => (JSON.parse(body) as { message: string }).message;
const endpointOf = (kind: Kind) => `/api/${kind.id}`;
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

// Component names.
const foundSchema = (kind: Kind) => `${kindTitle(kind.id)}Found`;
const notFoundSchema = (kind: Kind) => `${recordTitle(kind)}NotFound`;
const AUTH_FAILED = 'AuthFailed';
const NOT_MODIFIED = 'NotModified';

function errorEnvelope(messages: readonly [string, ...string[]]) {
  return z.strictObject({ error: z.literal(true), message: z.literal(messages) });
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
  }
  registry.add(errorEnvelope([messageOf(TOKEN_REQUIRED_BODY), messageOf(TOKEN_INVALID_BODY)]), { id: AUTH_FAILED });
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
      Object.entries({ ...COMMON_HEADERS, ...CHALLENGE_HEADERS }).map(([name, value]) => [
        name,
        { schema: headerSchema(value) },
      ]),
    ),
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
    [NOT_MODIFIED]: {
      description: 'If-None-Match named the ETag of this body: no body.',
      headers: headers('ETag', 'Cache-Control', 'Vary'),
    },
  };
  for (const kind of kinds) {
    responses[foundSchema(kind)] = jsonResponse(`The matching ${kind.id}, ordered by level.`, foundSchema(kind), [
      'ETag',
      ...BODY_HEADERS,
    ]);
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
  return { ...Object.fromEntries(searches), [IF_NONE_MATCH]: ifNoneMatch };
}

function kindPath(kind: Kind): Json {
  const operation = (method: 'get' | 'head', summary: string) => ({
    operationId: `${method}${kindTitle(kind.id)}`,
    tags: [kind.id],
    summary,
    responses: responsesOf(getResponses(kind), method),
  });
  return {
    description: `The same endpoint with a trailing slash: \`${endpointOf(kind)}/\`.`,
    parameters: [ref('parameters', searchParameterName(kind)), ref('parameters', IF_NONE_MATCH)],
    get: operation('get', `${kindTitle(kind.id)}: the whole list, one level${kind.named ? ', or one by name' : ''}`),
    head: operation('head', 'As GET, without the body'),
  };
}

const bodyLine = (body: string) => `\`${body}\``;

/**
 * The answers no operation can document (each has no success): writes, unknown paths and
 * CORS preflights. Described in the document's description, with their exact bodies.
 */
const OTHER_ANSWERS = `## Other answers

- Any other method than ${ALLOWED_METHODS} (POST, PUT, PATCH, DELETE...): 401 without a valid token, else 405 with \`Allow: ${ALLOWED_METHODS}\` and ${bodyLine(METHOD_NOT_ALLOWED_BODY)}.
- Any other path below \`/api/\` (\`/api/unicorns\`, \`/api/trees/extra\`): 401 without a valid token, else 404 with ${bodyLine(UNKNOWN_ENDPOINT_BODY)}.
- OPTIONS, the CORS preflight, needs no token: 204 with ${Object.entries(PREFLIGHT_HEADERS)
  .map(([name, value]) => `\`${name}: ${value}\``)
  .join(', ')}.
- Every \`/api/\` answer carries ${Object.entries(COMMON_HEADERS)
  .map(([name, value]) => `\`${name}: ${value}\``)
  .join(', ')} and \`X-Data-Version\`; errors \`Cache-Control: ${CACHE_ERROR}\`. Bodies are compressed as
  Accept-Encoding allows (\`Content-Encoding\`, \`Vary\`).`;

const DESCRIPTION = `Read-only reference data of the tree-farming game: six endpoints, one per kind, under \`/api\`.
A trailing slash is the same endpoint (\`/api/trees/\`). Methods: GET, HEAD (no body) and OPTIONS (CORS preflight, no token).

Every request but a preflight sends a token in the Authorization header, bare (\`Authorization: <token>\`) or as \`Authorization: Bearer <token>\` (scheme in any letter case).

Success is \`{"error": false, "message": ..., "data": [...]}\` (keys in that order); errors are \`{"error": true, "message": ...}\`.
Records carry exactly the fields of their schema, in that order. The same data is offered as offline bundles under /downloads/.

${OTHER_ANSWERS}`;

/** Relative first: the site that serves this document; then the local server of `npm start`. */
const SERVERS = [
  { url: '/', description: 'The site this document is served from' },
  { url: LOCAL_ORIGIN, description: 'The local server of `npm start`' },
];

/** The licence of the API's code and documents (SPDX). */
const LICENSE = { name: 'MIT License', identifier: 'MIT' };

const tagOf = (kind: Kind) => ({
  name: kind.id,
  description: `${kindTitle(kind.id)}, ordered by level; each ${kind.noun} has ${apiFields(kind).join(', ')}.`,
});

/** The OpenAPI document of the API built from content of the given data version. */
export function openApiDocument(version: string): Json {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: { title: 'Tree farm data API', version, description: DESCRIPTION, license: LICENSE },
    servers: SERVERS,
    tags: kinds.map(tagOf),
    security: [{ apiToken: [] }],
    paths: Object.fromEntries(kinds.map((kind) => [endpointOf(kind), kindPath(kind)])),
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
