import { METHOD_NOT_ALLOWED_BODY, UNKNOWN_ENDPOINT_BODY } from '../contract/messages.ts';
import { ALLOWED_METHODS, CACHE_ERROR, CACHE_PINNED, COMMON_HEADERS, PREFLIGHT_HEADERS } from '../contract/headers.ts';
import { HEALTH_CACHE_CONTROL, HEALTH_PATH } from '../contract/health.ts';
import { MCP_PATH } from '../apps/mcp/bounds.ts';
import { LOCAL_ORIGIN } from '../contract/paths.ts';
import { RATE_LIMIT_VARIABLE, RATE_LIMIT_WINDOWS } from '../schema/environment.ts';
import { MAX_SEARCH_LENGTH } from '../contract/search-query.ts';
import { NEAR_MIN_LENGTH, SUGGESTION_LIMIT, TWO_EDITS_MIN_LENGTH } from '../contract/suggest.ts';
import { apiFields, kinds, kindTitle, type Kind } from '../schema/kinds.ts';
import { JSON_SCHEMA_DIALECT } from './json-schemas.ts';

import { MCP_TAG, mcpPathItem } from '../apps/mcp/openapi.ts';
import {
  type Json,
  endpointOf,
  ref,
  foundSchema,
  notFoundSchema,
  suggestionsSchema,
  suggestEndpointOf,
  RELEASE_NOT_FOUND,
  AUTH_FAILED,
  NOT_MODIFIED,
  RELEASES_FOUND,
  RELEASES_ENDPOINT,
  TOO_MANY_REQUESTS,
  HEALTH,
  componentSchemas,
  headerSchema,
  componentHeaders,
  RESPONSES,
  responsesOf,
} from './openapi-components.ts';

const getResponses = (kind: Kind) => ({
  '200': foundSchema(kind),
  '304': NOT_MODIFIED,
  '401': AUTH_FAILED,
  '404': notFoundSchema(kind),
  '429': TOO_MANY_REQUESTS,
});

const searchParameterName = (kind: Kind) => (kind.named ? 'search' : 'levelSearch');

function searchParameter(kind: Kind): Json {
  const rules = [
    'Selects records. Only the first `search` parameter counts; other query parameters are ignored.',
    'The value is decoded as URLSearchParams does (`+` is a space); let v be it with surrounding white space removed.',
    '1. Absent, v empty, or v `null` or `undefined` in any letter case: the whole list.',
    '2. v is ASCII digits only (`5`, `05`): every record of that level, in list order; ' +
      'none at that level is not found.',
    kind.named
      ? '3. Otherwise a name search: NFKD, combining marks removed, lower case, ' +
        'every character but a-z and 0-9 dropped; the one record whose name or earlier name (alias) has that key. ' +
        'An empty key or no match is not found.'
      : `3. Otherwise not found: ${kind.id} have no name, so they are looked up by level only.`,
    `4. v longer than ${MAX_SEARCH_LENGTH} characters: not found.`,
  ];
  const examples: Json = { whole: { value: '' }, level: { value: '1' } };
  if (kind.named)
    examples['name'] = { value: 'Oak Tree', summary: 'any letter case and punctuation: "oak-tree", "OAKTREE"' };
  return queryParameter('search', rules, examples);
}

/** A string query parameter, its rules one per line. */
function queryParameter(name: string, rules: readonly string[], examples: Json): Json {
  return { name, in: 'query', required: false, description: rules.join('\n'), schema: { type: 'string' }, examples };
}

const SUGGEST_SEARCH = 'suggestSearch';

function suggestSearchParameter(): Json {
  const rules = [
    'What the user typed so far. Only the first `search` parameter counts; v is its value, trimmed.',
    `1. Absent, v empty, \`null\` or \`undefined\`: the first ${SUGGESTION_LIMIT} records in list order.`,
    '2. v all digits: the records whose level, in decimal, starts with v (`6`: 6, 60 to 69, ...), in list order.',
    '3. Otherwise, with k the search key of v (as for `search` on the kind; an empty key gives []), in this ' +
      'order of groups, each in list order, each record once: (a) its name key or an alias key equals k; ' +
      '(b) its name key starts with k; (c) a word of its name starts with k (`oak` finds Northern Red Oak); ' +
      '(d) an alias key starts with k, shown by the current name; (e) only when a to d are empty and k has ' +
      `${NEAR_MIN_LENGTH} or more characters: names and words within 1 edit of k (2 edits from ` +
      `${TWO_EDITS_MIN_LENGTH} characters), an edit inserting, deleting or replacing a character or swapping ` +
      'two neighbours; nearer first (`sequioa` finds Giant Sequoia).',
    `4. v longer than ${MAX_SEARCH_LENGTH} characters: [].`,
  ];
  return queryParameter('search', rules, {
    prefix: { value: 'oak' },
    typo: { value: 'sequioa' },
    level: { value: '6' },
  });
}

const IF_NONE_MATCH = 'IfNoneMatch';
const RELEASE = 'Release';

const releaseParameter = {
  name: 'release',
  in: 'query',
  required: false,
  description: [
    "Pins the answer to a data release (listed at /api/releases): exactly what that release's data gives,",
    `with its own X-Data-Version and \`Cache-Control: ${CACHE_PINNED}\`. Only the first \`release\` counts;`,
    'absent or empty: the current data. An id that names no release: 404.',
  ].join(' '),
  schema: { type: 'string' },
  examples: { pinned: { value: '2026-12-01' } },
};

const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag from an earlier 200: 304 when it still matches.',
  schema: { type: 'string' },
};

function componentParameters(): Record<string, Json> {
  const searches = kinds.map((kind) => [searchParameterName(kind), searchParameter(kind)]);
  return {
    ...Object.fromEntries(searches),
    [SUGGEST_SEARCH]: suggestSearchParameter(),
    [RELEASE]: releaseParameter,
    [IF_NONE_MATCH]: ifNoneMatch,
  };
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
    parameters: [
      ref('parameters', searchParameterName(kind)),
      ref('parameters', RELEASE),
      ref('parameters', IF_NONE_MATCH),
    ],
    get: operation('get', `${kindTitle(kind.id)}: the whole list, one level${kind.named ? ', or one by name' : ''}`),
    head: operation('head', 'As GET, without the body'),
  };
}

function suggestPath(kind: Kind): Json {
  const byStatus = {
    '200': suggestionsSchema(kind),
    '304': NOT_MODIFIED,
    '401': AUTH_FAILED,
    '404': RELEASE_NOT_FOUND,
    '429': TOO_MANY_REQUESTS,
  };
  const operation = (method: 'get' | 'head', summary: string) => ({
    operationId: `${method}${kindTitle(kind.id)}Suggestions`,
    tags: [kind.id],
    summary,
    responses: responsesOf(byStatus, method),
  });
  return {
    description: `The same endpoint with a trailing slash: \`${suggestEndpointOf(kind)}/\`.`,
    parameters: [ref('parameters', SUGGEST_SEARCH), ref('parameters', RELEASE), ref('parameters', IF_NONE_MATCH)],
    get: operation('get', `Up to ${SUGGESTION_LIMIT} ${kind.id} for what a user typed so far, typos forgiven`),
    head: operation('head', 'As GET, without the body'),
  };
}

const RELEASES_TAG = {
  name: 'releases',
  description: 'The data releases: frozen, dated copies of the data, newest first, each with what changed in it.',
};

function releasesPath(): Json {
  const byStatus = { '200': RELEASES_FOUND, '304': NOT_MODIFIED, '401': AUTH_FAILED, '429': TOO_MANY_REQUESTS };
  const operation = (method: 'get' | 'head', summary: string) => ({
    operationId: `${method}Releases`,
    tags: [RELEASES_TAG.name],
    summary,
    responses: responsesOf(byStatus, method),
  });
  return {
    description: `The same endpoint with a trailing slash: \`${RELEASES_ENDPOINT}/\`.`,
    parameters: [ref('parameters', IF_NONE_MATCH)],
    get: operation('get', 'Every data release, newest first, each with its changes against the one before'),
    head: operation('head', 'As GET, without the body'),
  };
}

const HEALTH_TAG = { name: 'health', description: 'Whether the server is up, for load balancers and uptime checks.' };

function healthPath(): Json {
  const answer = (method: 'get' | 'head') => ({
    description: 'The server is up and serves this data version.',
    headers: {
      'Cache-Control': { schema: headerSchema(HEALTH_CACHE_CONTROL) },
    },
    ...(method === 'get' ? { content: { 'application/json': { schema: ref('schemas', HEALTH) } } } : {}),
  });
  const operation = (method: 'get' | 'head', summary: string) => ({
    operationId: `${method}Health`,
    tags: [HEALTH_TAG.name],
    summary,
    security: [],
    responses: { '200': answer(method) },
  });
  return {
    get: operation('get', 'Up, and which data: no token, never cached'),
    head: operation('head', 'As GET, without the body'),
  };
}

const bodyLine = (body: string) => `\`${body}\``;

/**
 * The answers no operation can document (each has no success): writes, unknown paths and
 * CORS preflights. Described in the document's description, with their exact bodies.
 */
const OTHER_ANSWERS =
  `## Other answers

- Any other method than ${ALLOWED_METHODS} (POST, PUT, PATCH, DELETE...): 401 without a valid token, ` +
  `else 405 with \`Allow: ${ALLOWED_METHODS}\` and ${bodyLine(METHOD_NOT_ALLOWED_BODY)}.
- Any other path below \`/api/\` (\`/api/unicorns\`, \`/api/trees/extra\`): 401 without a valid token, ` +
  `else 404 with ${bodyLine(UNKNOWN_ENDPOINT_BODY)}.
- OPTIONS, the CORS preflight, needs no token: 204 with ${Object.entries(PREFLIGHT_HEADERS)
    .map(([name, value]) => `\`${name}: ${value}\``)
    .join(', ')}.
- Every \`/api/\` answer carries ${Object.entries(COMMON_HEADERS)
    .map(([name, value]) => `\`${name}: ${value}\``)
    .join(', ')} and \`X-Data-Version\`; errors \`Cache-Control: ${CACHE_ERROR}\`. Bodies are compressed as
  Accept-Encoding allows (\`Content-Encoding\`, \`Vary\`).

## Rate limits

An operator may limit the requests per token (\`${RATE_LIMIT_VARIABLE}=<requests>/<seconds>s\`, seconds
${RATE_LIMIT_WINDOWS.join(' or ')}); off unless configured. Requests without a valid token count against the client's
address. Under a limit every \`/api/\` answer carries \`RateLimit-Policy\` (the local server also \`RateLimit\`,
what is left); past it the answer is 429 with \`Retry-After\` in seconds. OPTIONS is not counted.`;

const DESCRIPTION =
  `Read-only reference data of the tree-farming game: six endpoints, one per kind, under \`/api\`, each with
suggestions for type-ahead boxes below it (\`/api/trees/suggest?search=oak\`).
A trailing slash is the same endpoint (\`/api/trees/\`). ` +
  `Methods: GET, HEAD (no body) and OPTIONS (CORS preflight, no token).

Every request but a preflight sends a token in the Authorization header, bare (\`Authorization: <token>\`) ` +
  `or as \`Authorization: Bearer <token>\` (scheme in any letter case).

Success is \`{"error": false, "message": ..., "data": [...]}\` (keys in that order); ` +
  `errors are \`{"error": true, "message": ...}\`.
Records carry exactly the fields of their schema, in that order. ` +
  `The same data is offered as offline bundles under /downloads/.

The data changes with the game. Each data release is a frozen, dated copy of it: ` +
  `\`/api/releases\` lists them, newest first, with what changed in each; ` +
  `\`release=<id>\` on any list, search or suggestion answers from that release, for good.

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
    tags: [...kinds.map(tagOf), RELEASES_TAG, MCP_TAG, HEALTH_TAG],
    security: [{ apiToken: [] }],
    paths: {
      ...Object.fromEntries(
        kinds.flatMap((kind) => [
          [endpointOf(kind), kindPath(kind)],
          [suggestEndpointOf(kind), suggestPath(kind)],
        ]),
      ),
      [RELEASES_ENDPOINT]: releasesPath(),
      [MCP_PATH]: mcpPathItem({
        unauthorized: ref('responses', AUTH_FAILED),
        tooMany: ref('responses', TOO_MANY_REQUESTS),
      }),
      [HEALTH_PATH]: healthPath(),
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
