// The OpenAPI 3.1 document of the API (/openapi.json and in the bundles). Record and envelope
// schemas come from the zod schemas, every message from src/contract/messages.ts, so the
// document describes exactly what the build writes and the edge sends.
import { z } from 'zod';
import {
  METHOD_NOT_ALLOWED_BODY,
  notFoundBody,
  RELEASE_NOT_FOUND_BODY,
  RELEASE_NOUN,
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
  CACHE_PINNED,
  CHALLENGE_HEADERS,
  COMMON_HEADERS,
  PREFLIGHT_HEADERS,
} from '../contract/headers.ts';
import { HEALTH_CACHE_CONTROL, HEALTH_PATH } from '../contract/health.ts';
import { MCP_MAX_BODY_BYTES, MCP_MAX_DEPTH, MCP_METHODS } from '../apps/mcp/bounds.ts';
import { toolNames } from '../apps/mcp/tools.ts';
import { LOCAL_ORIGIN, MCP_PATH } from '../contract/paths.ts';
import { rateLimitPolicy, rateLimitState, TOO_MANY_FROM } from '../contract/rate-limit.ts';
import { RATE_LIMIT_VARIABLE, RATE_LIMIT_WINDOWS } from '../schema/environment.ts';
import { MAX_SEARCH_LENGTH } from '../contract/search-query.ts';
import { NEAR_MIN_LENGTH, SUGGESTION_LIMIT, TWO_EDITS_MIN_LENGTH } from '../contract/suggest.ts';
import { apiFields, kinds, kindTitle, recordTitle, type Kind } from '../schema/kinds.ts';
import { manifestSchema } from '../schema/manifest.ts';
import { releaseSummarySchema } from '../schema/releases.ts';
import { JSON_SCHEMA_DIALECT, recordJsonSchema } from './json-schemas.ts';

type Json = Record<string, unknown>;

const messageOf = (body: string): string => (JSON.parse(body) as { message: string }).message;
const endpointOf = (kind: Kind) => `/api/${kind.id}`;
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

// Component names.
const foundSchema = (kind: Kind) => `${kindTitle(kind.id)}Found`;
const notFoundSchema = (kind: Kind) => `${recordTitle(kind)}NotFound`;
const suggestionsSchema = (kind: Kind) => `${recordTitle(kind)}Suggestions`;
const suggestEndpointOf = (kind: Kind) => `${endpointOf(kind)}/suggest`;
const RELEASE_NOT_FOUND = 'ReleaseNotFound';
const AUTH_FAILED = 'AuthFailed';
const NOT_MODIFIED = 'NotModified';
const RELEASES_FOUND = 'ReleasesFound';
const RELEASES_ENDPOINT = '/api/releases';
const TOO_MANY_REQUESTS = 'TooManyRequests';
const HEALTH = 'Health';
/** The headers of a configured rate limit, on every /api/ answer. */
const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit'];

function errorEnvelope(messages: readonly [string, ...string[]]) {
  return z.strictObject({ error: z.literal(true), message: z.literal(messages) });
}

/** A suggestion answer of a kind: entries of the record's name and level (plots: level), typed as in the record. */
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
      .describe(`At most ${SUGGESTION_LIMIT} entries, one per record, ranked as \`search\` says; [] for no match.`),
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
    registry.add(errorEnvelope([messageOf(notFoundBody(kind.noun)), messageOf(RELEASE_NOT_FOUND_BODY)]), {
      id: notFoundSchema(kind),
    });
    registry.add(suggestionsEnvelope(kind), { id: suggestionsSchema(kind) });
  }
  registry.add(errorEnvelope([messageOf(RELEASE_NOT_FOUND_BODY)]), { id: RELEASE_NOT_FOUND });
  const releases = z.strictObject({
    error: z.literal(false),
    message: z.literal(messageOf(successBody(RELEASE_NOUN, []))),
    data: z.array(releaseSummarySchema).describe('Every data release, newest first.'),
  });
  registry.add(releases, { id: RELEASES_FOUND });
  registry.add(errorEnvelope([messageOf(TOKEN_REQUIRED_BODY), messageOf(TOKEN_INVALID_BODY)]), { id: AUTH_FAILED });
  const windows = RATE_LIMIT_WINDOWS.join('|');
  const tooMany = z.strictObject({
    error: z.literal(true),
    message: z
      .string()
      .regex(
        new RegExp(
          `^Too many requests (${Object.values(TOO_MANY_FROM).join('|')}): ` +
            `the limit is \\d+ per (${windows}) seconds\\. Try again in \\d+ seconds\\.$`,
        ),
      ),
  });
  registry.add(tooMany, { id: TOO_MANY_REQUESTS });
  const health = z.strictObject({
    status: z.literal('ok'),
    dataVersion: manifestSchema.shape.version,
  });
  registry.add(health, { id: HEALTH });
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
        'The version of the content the response was built from: the same value as in the build manifest ' +
        "and the offline bundles. An answer pinned with `release` carries that release's version.",
      schema: { ...versionSchema, examples: [version] },
    },
    ETag: {
      description: 'One per encoding of the body. Send it back in If-None-Match to get 304.',
      schema: { type: 'string' },
    },
    'Cache-Control': {
      description:
        `\`${CACHE_FOUND}\` on 200 and 304; \`${CACHE_PINNED}\` on those pinned to a release, ` +
        `which never changes; \`${CACHE_ERROR}\` on errors.`,
      schema: { type: 'string', enum: [CACHE_FOUND, CACHE_PINNED, CACHE_ERROR] },
    },
    Vary: { description: 'The body depends on Accept-Encoding.', schema: headerSchema('Accept-Encoding') },
    'Content-Encoding': {
      description:
        '`br` or `gzip` when Accept-Encoding accepts it; absent for identity. ' +
        'The decoded body is byte for byte the same.',
      schema: { type: 'string', enum: ['br', 'gzip'] },
    },
    'RateLimit-Policy': {
      description:
        `Only when the operator configures a rate limit (${RATE_LIMIT_VARIABLE}): the requests a token may make ` +
        `per window of seconds, such as \`${rateLimitPolicy({ requests: 100, seconds: 60 })}\`.`,
      schema: { type: 'string', pattern: '^"token";q=\\d+;w=\\d+$' },
    },
    RateLimit: {
      description:
        'Under a configured rate limit: the requests left in this window and the seconds until it resets, ' +
        `such as \`${rateLimitState(42, 17)}\`. The local server sends it on every /api/ answer; ` +
        'a Cloudflare Worker only with a 429 (r=0), since its rate limiting binding tells no more.',
      schema: { type: 'string', pattern: '^"token";r=\\d+;t=\\d+$' },
    },
    'Retry-After': {
      description: 'Seconds until the rate limit lets this token (or, without a valid token, this address) in again.',
      schema: { type: 'string', pattern: '^\\d+$' },
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
  const names = ['X-Data-Version', ...Object.keys(COMMON_HEADERS), ...RATE_LIMIT_HEADERS, ...extra];
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
    [TOO_MANY_REQUESTS]: jsonResponse(
      'The token (or, without a valid token, the client address) made more requests in this window than the ' +
        'configured rate limit allows. Counted before the token is checked for addresses over their limit.',
      TOO_MANY_REQUESTS,
      ['Retry-After', ...BODY_HEADERS],
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
      `No ${kind.noun} matches the search, or \`release\` names no release.`,
      notFoundSchema(kind),
      BODY_HEADERS,
      { notFound: exampleOf(notFoundBody(kind.noun)), unknownRelease: exampleOf(RELEASE_NOT_FOUND_BODY) },
    );
  }
  for (const kind of kinds) {
    responses[suggestionsSchema(kind)] = jsonResponse(
      `Up to ${SUGGESTION_LIMIT} ${kind.id} for a type-ahead box; always 200 with a valid token.`,
      suggestionsSchema(kind),
      ['ETag', ...BODY_HEADERS],
    );
  }
  responses[RELEASE_NOT_FOUND] = jsonResponse('`release` names no release.', RELEASE_NOT_FOUND, BODY_HEADERS, {
    unknownRelease: exampleOf(RELEASE_NOT_FOUND_BODY),
  });
  responses[RELEASES_FOUND] = jsonResponse('Every data release, newest first.', RELEASES_FOUND, [
    'ETag',
    ...BODY_HEADERS,
  ]);
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

const MCP_TAG = {
  name: 'mcp',
  description:
    'The same data for AI assistants: a read-only Model Context Protocol server (Streamable HTTP, stateless, ' +
    'JSON responses) whose tools answer from the same prebuilt answers as /api/.',
};

/** A JSON-RPC error, as /mcp answers a request it cannot take. */
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string', description: 'What is wrong.' } },
    },
    id: { type: ['string', 'integer', 'null'] },
  },
};

/** One JSON-RPC message, as /mcp takes it. */
const JSON_RPC_REQUEST = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string', examples: ['tools/call'] },
    params: { type: 'object' },
  },
};

/** The answer to a JSON-RPC request: its result, or an error. */
const JSON_RPC_RESPONSE = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    result: { type: 'object', description: 'The answer: for tools/call, content and structuredContent.' },
    error: JSON_RPC_ERROR.properties.error,
  },
};

function mcpPath(): Json {
  const rpcError = (description: string) => ({
    description,
    content: { 'application/json': { schema: JSON_RPC_ERROR } },
  });
  return {
    post: {
      operationId: 'postMcp',
      tags: [MCP_TAG.name],
      summary: 'One message of the Model Context Protocol (initialize, tools/list, tools/call ...)',
      description:
        `The tools: ${toolNames.join(', ')}, each read-only. A tool's records equal the API's answer to the same ` +
        'question. Stateless: no session, no event stream; only ' +
        `${MCP_METHODS} (other methods get 405 with \`Allow: ${MCP_METHODS}\`). A body is at most ` +
        `${MCP_MAX_BODY_BYTES} bytes, nested at most ${MCP_MAX_DEPTH} deep, one message (no batch). ` +
        'Every request counts once under the rate limit.',
      requestBody: { required: true, content: { 'application/json': { schema: JSON_RPC_REQUEST } } },
      responses: {
        '200': {
          description:
            'The JSON-RPC response: a result, or an error that names what is wrong (an unknown method or tool, ' +
            'malformed params). Arguments a tool cannot take (missing, wrong, a release or plot that does not ' +
            'exist) are a result flagged isError that names the argument and what it expects.',
          content: { 'application/json': { schema: JSON_RPC_RESPONSE } },
        },
        '202': { description: 'A notification or response, accepted: no body.' },
        '400': rpcError(
          `Not JSON, not one JSON-RPC message (a batch, or JSON that is no message), params that are not an ` +
            `object, or nested deeper than ${MCP_MAX_DEPTH}.`,
        ),
        '401': ref('responses', AUTH_FAILED),
        '406': rpcError('Accept does not list both application/json and text/event-stream.'),
        '413': rpcError(`The body is over ${MCP_MAX_BODY_BYTES} bytes.`),
        '415': rpcError('Content-Type is not application/json.'),
        '429': ref('responses', TOO_MANY_REQUESTS),
      },
    },
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
      [MCP_PATH]: mcpPath(),
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
