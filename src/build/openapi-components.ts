// The OpenAPI document's components (src/build/openapi.ts): the schemas of every body, the headers,
// the responses by name, and the references to them that the paths use.
import { z } from 'zod';
import {
  notFoundBody,
  RELEASE_NOT_FOUND_BODY,
  RELEASE_NOUN,
  successBody,
  suggestBody,
  TOKEN_INVALID_BODY,
  TOKEN_REQUIRED_BODY,
} from '../contract/messages.ts';
import { CACHE_ERROR, CACHE_FOUND, CACHE_PINNED, CHALLENGE_HEADERS, COMMON_HEADERS } from '../contract/headers.ts';
import { rateLimitPolicy, rateLimitState, TOO_MANY_FROM } from '../contract/rate-limit.ts';
import { RATE_LIMIT_VARIABLE, RATE_LIMIT_WINDOWS } from '../schema/environment.ts';
import { SUGGESTION_LIMIT } from '../contract/suggest.ts';
import { kinds, kindTitle, recordTitle, type Kind } from '../schema/kinds.ts';
import { manifestSchema } from '../schema/manifest.ts';
import { releaseSummarySchema } from '../schema/releases.ts';
import { recordJsonSchema } from './json-schemas.ts';

export type Json = Record<string, unknown>;

export const messageOf = (body: string): string => (JSON.parse(body) as { message: string }).message;
export const endpointOf = (kind: Kind) => `/api/${kind.id}`;
export const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

// Component names.
export const foundSchema = (kind: Kind) => `${kindTitle(kind.id)}Found`;
export const notFoundSchema = (kind: Kind) => `${recordTitle(kind)}NotFound`;
export const suggestionsSchema = (kind: Kind) => `${recordTitle(kind)}Suggestions`;
export const suggestEndpointOf = (kind: Kind) => `${endpointOf(kind)}/suggest`;
export const RELEASE_NOT_FOUND = 'ReleaseNotFound';
export const AUTH_FAILED = 'AuthFailed';
export const NOT_MODIFIED = 'NotModified';
export const RELEASES_FOUND = 'ReleasesFound';
export const RELEASES_ENDPOINT = '/api/releases';
export const TOO_MANY_REQUESTS = 'TooManyRequests';
export const HEALTH = 'Health';
/** The headers of a configured rate limit, on every /api/ answer. */
export const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit'];

export function errorEnvelope(messages: readonly [string, ...string[]]) {
  return z.strictObject({ error: z.literal(true), message: z.literal(messages) });
}

/** A suggestion answer of a kind: entries of the record's name and level (plots: level), typed as in the record. */
export function suggestionsEnvelope(kind: Kind) {
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
export function componentSchemas(): Record<string, Json> {
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

export const headerSchema = (value: string) => ({ type: 'string', const: value });

export function componentHeaders(version: string): Record<string, Json> {
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
export function headers(...extra: string[]): Json {
  const names = ['X-Data-Version', ...Object.keys(COMMON_HEADERS), ...RATE_LIMIT_HEADERS, ...extra];
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]));
}

export const BODY_HEADERS = ['Content-Encoding', 'Vary', 'Cache-Control'];

export function jsonResponse(description: string, schemaName: string, headerNames: string[], examples?: Json): Json {
  const media = { schema: ref('schemas', schemaName), ...(examples ? { examples } : {}) };
  return { description, headers: headers(...headerNames), content: { 'application/json': media } };
}

export function exampleOf(body: string): Json {
  return { value: JSON.parse(body) as unknown };
}

/** Every response of the contract, by component name. */
export function componentResponses(): Record<string, Json> {
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
export function withHeadVariants(responses: Record<string, Json>): Record<string, Json> {
  const variants = Object.entries(responses)
    .filter(([, response]) => 'content' in response)
    .map(([name, { content: _body, ...rest }]) => [headVariant(name), rest]);
  return { ...responses, ...Object.fromEntries(variants) };
}

export const headVariant = (name: string) => `${name}WithoutBody`;
export const RESPONSES = withHeadVariants(componentResponses());

/** Responses by status, each a reference to a component response. */
export function responsesOf(byStatus: Record<string, string>, method: 'get' | 'head' = 'get'): Json {
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, name]) => {
      const head = method === 'head' && headVariant(name) in RESPONSES;
      return [status, ref('responses', head ? headVariant(name) : name)];
    }),
  );
}
