// The edge core: a pure function from a request (method, URL, headers) to a decision, the
// same in every runtime. Adapters (src/server, src/worker/worker.ts) only translate it: they
// fetch the bytes of the chosen body in the chosen encoding and send them. A near-miss
// suggestion is the one answer made from several files: the decision names them, and a pure
// function of their texts gives the response.
import {
  METHOD_NOT_ALLOWED_BODY,
  NOT_FOUND_BODY,
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
  JSON_CONTENT_TYPE,
  PREFLIGHT_HEADERS,
} from '../contract/headers.ts';
import { createHash } from 'node:crypto';
import { suggestBody } from '../contract/messages.ts';
import { API_DIR, notFoundPath, queryPath } from '../contract/paths.ts';
import { parseSearch } from '../contract/search-query.ts';
import { nearBody, planSuggestion } from '../contract/suggest.ts';
import { kindById, type Kind } from '../schema/kinds.ts';
import type { Manifest } from '../schema/manifest.ts';
import { chooseEncoding, etagFor, ifNoneMatchHits, type Encoding } from './negotiation.ts';
import { isConfiguredToken, presentedToken, type Digest } from './tokens.ts';

export interface EdgeRequest {
  method: string;
  url: URL;
  /** A header's value, several values of one header joined by ", "; null when absent. */
  header(name: string): string | null;
}

/**
 * What to send: a prebuilt API file (a path of the manifest), a fixed text (FIXED_BODIES), or
 * a body merged for this request from prebuilt files (a near-miss suggestion).
 */
export type BodySource = { file: string } | { text: string } | { merged: string };

/** An answer the edge gives itself: every /api/ request, and static paths it refuses. */
export interface EdgeResponse {
  type: 'respond';
  status: number;
  headers: Record<string, string>;
  /** Absent for 204 and 304. */
  body?: BodySource;
  encoding: Encoding;
  /** HEAD: send the headers of the GET, no body. */
  omitBody: boolean;
}

/**
 * An answer that needs a few prebuilt files first (near-miss suggestions): the adapter reads
 * `files` (identity, as UTF-8 text, in this order) and sends what `answer` gives for them.
 */
export interface EdgeLookup {
  type: 'lookup';
  files: string[];
  answer(texts: readonly string[]): EdgeResponse;
}

/** `static`: not the API's; the adapter serves the static site. */
export type EdgeDecision = { type: 'static' } | EdgeResponse | EdgeLookup;

export interface EdgeOptions {
  manifest: Manifest;
  tokenDigests: readonly Digest[];
}

const ENDPOINT = /^\/api\/([a-z]+)(\/suggest)?\/?$/;

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function createEdge({ manifest, tokenDigests }: EdgeOptions): (request: EdgeRequest) => EdgeDecision {
  const baseHeaders = { ...COMMON_HEADERS, 'X-Data-Version': manifest.version };

  function respond(
    status: number,
    body: BodySource | undefined,
    request: EdgeRequest,
    extra: Record<string, string> = {},
  ): EdgeResponse {
    const encoding = body ? chooseEncoding(request.header('accept-encoding')) : 'identity';
    const headers: Record<string, string> = { ...baseHeaders, ...extra };
    if (body) {
      headers['Content-Type'] = JSON_CONTENT_TYPE;
      headers['Vary'] = 'Accept-Encoding';
      if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
    }
    return { type: 'respond', status, headers, body, encoding, omitBody: request.method.toUpperCase() === 'HEAD' };
  }

  /** 200 with a body of the given SHA-256, or 304 when the client already holds this encoding of it. */
  function serveFound(body: BodySource, sha256: string, request: EdgeRequest): EdgeResponse {
    const decision = respond(200, body, request, { 'Cache-Control': CACHE_FOUND });
    const etag = etagFor(sha256, decision.encoding);
    decision.headers['ETag'] = etag;
    if (!ifNoneMatchHits(request.header('if-none-match'), etag)) return decision;
    const { 'Content-Type': _type, 'Content-Encoding': _encoding, ...headers } = decision.headers;
    return { type: 'respond', status: 304, headers, encoding: 'identity', omitBody: true };
  }

  const serve: Serve = {
    found: serveFound,
    // A body merged for this request, served like a file: its ETag is its own SHA-256.
    merged: (body, request) => serveFound({ merged: body }, sha256Hex(body), request),
  };

  return function decide(request: EdgeRequest): EdgeDecision {
    const pathname = request.url.pathname;
    if (pathname !== '/api' && !pathname.startsWith('/api/')) {
      return reachesApiFolder(pathname) ? respond(404, { text: NOT_FOUND_BODY }, request) : { type: 'static' };
    }
    const method = request.method.toUpperCase();
    if (method === 'OPTIONS') {
      return respond(204, undefined, request, PREFLIGHT_HEADERS);
    }
    // The token is checked before anything else, so nothing about the API leaks without one.
    const token = presentedToken(request.header('authorization'));
    if (token === '')
      return respond(401, { text: TOKEN_REQUIRED_BODY }, request, {
        ...CHALLENGE_HEADERS,
        'Cache-Control': CACHE_ERROR,
      });
    if (!isConfiguredToken(token, tokenDigests)) {
      return respond(401, { text: TOKEN_INVALID_BODY }, request, {
        ...CHALLENGE_HEADERS,
        'Cache-Control': CACHE_ERROR,
      });
    }
    const endpoint = ENDPOINT.exec(pathname);
    const kind = kindById(endpoint?.[1] ?? '');
    if (!kind) return respond(404, { text: UNKNOWN_ENDPOINT_BODY }, request, { 'Cache-Control': CACHE_ERROR });
    if (method !== 'GET' && method !== 'HEAD') {
      return respond(405, { text: METHOD_NOT_ALLOWED_BODY }, request, {
        Allow: ALLOWED_METHODS,
        'Cache-Control': CACHE_ERROR,
      });
    }
    if (endpoint?.[2]) return suggest(kind, request, manifest, serve);
    const path = queryPath(kind.id, parseSearch(request.url.searchParams.get('search')));
    const file = path === undefined ? undefined : manifest.files[path];
    if (path === undefined || !file)
      return respond(404, { file: notFoundPath(kind.id) }, request, { 'Cache-Control': CACHE_ERROR });
    return serveFound({ file: path }, file.sha256, request);
  };
}

/** How the core answers 200s: a body with its SHA-256, or a body merged for one request. */
interface Serve {
  found(body: BodySource, sha256: string, request: EdgeRequest): EdgeResponse;
  merged(body: string, request: EdgeRequest): EdgeResponse;
}

/** GET /api/{kind}/suggest: a prebuilt answer, or a lookup of the near-miss shards. */
function suggest(kind: Kind, request: EdgeRequest, manifest: Manifest, serve: Serve): EdgeResponse | EdgeLookup {
  const exists = (path: string) => Object.hasOwn(manifest.files, path);
  const plan = planSuggestion(kind.id, request.url.searchParams.get('search'), exists);
  if (plan.type === 'near') {
    const answer = (texts: readonly string[]) => serve.merged(nearBody(kind.noun, plan.key, texts), request);
    return { type: 'lookup', files: plan.shards, answer };
  }
  const file = manifest.files[plan.path];
  // Only a build without a suggestion index lacks the empty answer: it is still an empty answer.
  return file
    ? serve.found({ file: plan.path }, file.sha256, request)
    : serve.merged(suggestBody(kind.noun, []), request);
}

/**
 * Whether a path outside /api/ would still reach the private API folder once a static file
 * server decodes it (%2f, %5c, double encoding, letter case): such requests are refused.
 */
export function reachesApiFolder(pathname: string): boolean {
  let path = pathname;
  for (let round = 0; round < 4; round++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      break;
    }
    if (decoded === path) break;
    path = decoded;
  }
  const segments: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '' && segment !== '.') segments.push(segment);
  }
  return segments[0]?.toLowerCase() === API_DIR;
}
