// The edge core: a function from a request (method, URL, headers) to a decision, the same in
// every runtime, written with Web-standard APIs only. It reads the build through a RouteIndex
// (src/contract/resolve.ts: the one rule from a request to a body, shared with the offline
// client) and decides what to send; adapters (src/server, src/worker/worker.ts) only fetch
// the chosen body in the chosen encoding and send it. Each answer is made once and shared
// (frozen), and the work a request repeats (negotiation, resolving a query, a token already
// verified) is remembered in bounded memos, so the common request allocates almost nothing.
import {
  ALLOWED_METHODS,
  CACHE_ERROR,
  CACHE_FOUND,
  CACHE_PINNED,
  CHALLENGE_HEADERS,
  COMMON_HEADERS,
  JSON_CONTENT_TYPE,
  PREFLIGHT_HEADERS,
  STATIC_METHODS,
} from '../contract/headers.ts';
import { sha256Hex } from '../contract/body-container.ts';
import { HEALTH_CACHE_CONTROL, HEALTH_PATH, healthBody } from '../contract/health.ts';
import type { FixedBodyName } from '../contract/messages.ts';
import { API_DIR, fixedRoute, MCP_PATH } from '../contract/paths.ts';
import { type RateLimit, rateLimitPolicy, rateLimitState, tooManyRequestsBody } from '../contract/rate-limit.ts';
import { currentRoot, currentRoute, resolve, type Resolved, type RouteIndex } from '../contract/resolve.ts';
import { kindById } from '../schema/kinds.ts';
import { boundedMemo, type Memo } from './memo.ts';
import { chooseEncoding, etagFor, ifNoneMatchHits, type Encoding } from './negotiation.ts';
import { configuredIndex, type Digest, digestPrefix, hexOf, presentedToken } from './tokens.ts';

export interface EdgeRequest {
  method: string;
  /** The URL's path as WHATWG URL parsing gives it (dot segments resolved, still percent-encoded). */
  pathname: string;
  /** The URL's query without its "?" ('' when there is none), as WHATWG URL parsing gives it. */
  query: string;
  /** A header's value, several values of one header joined by ", "; null when absent. */
  header(name: string): string | null;
  /**
   * The client's address (the socket's, or CF-Connecting-IP on Cloudflare): what a rate limit
   * counts a request without a valid token against.
   */
  client?: string | null;
}

/**
 * What to send, in the decision's encoding: a stored body of the build (by its SHA-256, see
 * src/contract/body-container.ts), or a text made for a query from the build's index (a
 * near-miss suggestion), which the adapter encodes.
 */
export type BodySource = { readonly stored: string } | { readonly text: string };

/** An answer the edge gives itself: every /api/ request, and static paths it refuses. Shared, frozen. */
export interface EdgeResponse {
  readonly type: 'respond';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for 204 and 304. */
  readonly body?: BodySource;
  readonly encoding: Encoding;
  /** HEAD: send the headers of the GET, no body. */
  readonly omitBody: boolean;
}

/**
 * A request to /mcp that the token check and the rate limit let through: the adapter answers it
 * with src/edge/mcp.ts, adding these headers (the API's, never cached). Shared, frozen.
 */
export interface McpHandOff {
  readonly type: 'mcp';
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * An answer counted under a rate limit: the shared `answer` plus what is this request's alone,
 * its RateLimit state.
 */
export interface CountedResponse {
  readonly type: 'counted';
  readonly answer: EdgeResponse | McpHandOff;
  /** The value of this request's RateLimit header, where the runtime knows what is left. */
  readonly rateLimit?: string;
  /**
   * Set when the same request, sent again, is counted under this key alone and gets this
   * answer while the count allows it: its token is verified and remembered by this core, and
   * this is not a 429. What lets an adapter that remembers decisions (remembered.ts) count a
   * repeat itself and reuse `answer`.
   */
  readonly tokenKey?: string;
}

/** `static`: not the API's; the adapter serves the static site. */
export type EdgeDecision = { readonly type: 'static' } | EdgeResponse | McpHandOff | CountedResponse;

/** What a runtime's count says of one request (rate-counter.ts locally, Cloudflare's binding in the Worker). */
export interface RateCount {
  allowed: boolean;
  /** Requests left in the window after this one, where the runtime knows it. */
  remaining?: number;
  /** Whole seconds until the window resets, where the runtime knows it. */
  resetSeconds?: number;
}

/** Which count a request falls under: its valid token's (by digest), or its client address's. */
export type RateScope = 'token' | 'address';

/** A rate limit and the count that enforces it, supplied by the adapter. */
export interface EdgeRateLimit {
  limit: RateLimit;
  count(scope: RateScope, key: string): RateCount | Promise<RateCount>;
}

export interface EdgeOptions {
  /** The build, as this runtime reads it. */
  index: RouteIndex;
  tokenDigests: readonly Digest[];
  /** The name of each token, in the order of tokenDigests (the access log's; by default its digest's first 8 hex). */
  tokenNames?: readonly string[];
  /** Off when absent. */
  rateLimit?: EdgeRateLimit;
}

/**
 * The core: decides a request; `tokenName` names the token an Authorization value passed with
 * (for logs). `tokenCount` is this request's count under its token when the adapter has already
 * made it (a remembered decision's repeat, see remembered.ts): the core uses it rather than
 * count the request again.
 */
export interface EdgeCore {
  (request: EdgeRequest, tokenCount?: RateCount): Promise<EdgeDecision>;
  tokenName(authorization: string | null): string | null;
}

/** A token that passed: the key its count is kept under (its digest in hex) and its name. */
interface VerifiedToken {
  key: string;
  name: string;
}

type Headers = Readonly<Record<string, string>>;

const ENDPOINT = /^\/api\/([a-z]+)(\/suggest)?\/?$/;
const STATIC: EdgeDecision = Object.freeze({ type: 'static' });
const ERROR_HEADERS: Headers = { 'Cache-Control': CACHE_ERROR };
const UNAUTHORIZED_HEADERS: Headers = { ...CHALLENGE_HEADERS, ...ERROR_HEADERS };
const NOT_ALLOWED_HEADERS: Headers = { Allow: ALLOWED_METHODS, ...ERROR_HEADERS };
const FOUND_HEADERS: Headers = { 'Cache-Control': CACHE_FOUND };
const PINNED_HEADERS: Headers = { 'Cache-Control': CACHE_PINNED };
const HEALTH_HEADERS: Headers = { 'Cache-Control': HEALTH_CACHE_CONTROL };
/** A method other than GET or HEAD on the static site: the API's 405 body, with the site's own Allow. */
const STATIC_NOT_ALLOWED_HEADERS: Headers = { Allow: STATIC_METHODS, ...ERROR_HEADERS };
/**
 * Answers outside /api/ (the static site's, /healthz) are remembered apart from the API's: their
 * headers differ, and they carry no RateLimit-Policy, as they are never counted.
 */
const STATIC_SCOPE = '\0static';
const HEALTH_SCOPE = '\0health';
const outsideApi = (scopeKey: string) => scopeKey === STATIC_SCOPE || scopeKey === HEALTH_SCOPE;
/** Distinct values each memo keeps: far above what real clients send, small in memory. */
const MEMO_LIMITS = { encodings: 256, queries: 4096, answers: 4096, verified: 64, tooMany: 64 };
/** GET /api/releases: the list of data releases. */
const RELEASES_ENDPOINT = 'releases';
const ENCODINGS: readonly Encoding[] = ['identity', 'br', 'gzip'];
/**
 * The answers of one body in one scope, by where they sit: 0-5 the GET and HEAD answers of
 * each encoding, 6-8 the 304 of each encoding.
 */
type BodyAnswers = (EdgeResponse | undefined)[];
const answerSlot = (encoding: Encoding, head: boolean) => ENCODINGS.indexOf(encoding) * 2 + (head ? 1 : 0);
const notModifiedSlot = (encoding: Encoding) => 6 + ENCODINGS.indexOf(encoding);
/** Longer header values and queries are worked out every time rather than remembered. */
const MEMO_KEY_LENGTH = 256;

/** A body to answer with: a stored one, or a made text with its SHA-256 (its ETag's source). */
type Body = { stored: string } | { text: string; sha256: string };

/** One build's edge: its index, the configured tokens, and what it has worked out so far. */
interface Edge {
  index: RouteIndex;
  tokenDigests: readonly Digest[];
  /** The headers of every /api/ answer, with the current data version; read on the first request. */
  baseHeaders?: Headers;
  /** The body of GET /healthz, made on the first. */
  health?: Body;
  encodings: Memo<string, Encoding>;
  /** By endpoint and query: what answers it. */
  resolved: Memo<string, Resolved>;
  /** The SHA-256 of each made body (near misses), by its resolution. */
  madeBodies: WeakMap<Resolved, Body>;
  /** The stored bodies of the fixed answers. */
  fixed: Map<FixedBodyName, string>;
  /** By status, body and scope. */
  answers: Memo<string, BodyAnswers>;
  /**
   * Only Authorization values that passed are remembered, so the map holds at most the
   * spellings of configured tokens; any other value is hashed and compared in constant time
   * every time. A reload makes a new core, so a removed token stops working there.
   */
  verified: Map<string, VerifiedToken>;
  tokenNames: readonly string[];
  rateLimit: EdgeRateLimit | undefined;
  /** RateLimit-Policy, under a limit. */
  policy: Headers;
  /** The 429's bodies, by their Retry-After seconds. */
  tooMany: Memo<number, Body>;
  /** The hand-off of every /mcp request let through, made on the first. */
  mcp?: McpHandOff;
}

export function createEdge({ index, tokenDigests, tokenNames = [], rateLimit }: EdgeOptions): EdgeCore {
  const edge: Edge = {
    index,
    tokenDigests,
    tokenNames,
    rateLimit,
    policy: rateLimit ? { 'RateLimit-Policy': rateLimitPolicy(rateLimit.limit) } : {},
    tooMany: boundedMemo(MEMO_LIMITS.tooMany),
    encodings: boundedMemo(MEMO_LIMITS.encodings),
    resolved: boundedMemo(MEMO_LIMITS.queries),
    madeBodies: new WeakMap(),
    fixed: new Map(),
    answers: boundedMemo(MEMO_LIMITS.answers),
    verified: new Map(),
  };
  const core = (request: EdgeRequest, tokenCount?: RateCount) => decide(edge, request, tokenCount);
  core.tokenName = (authorization: string | null) =>
    authorization === null ? null : (edge.verified.get(authorization)?.name ?? null);
  return core;
}

async function decide(edge: Edge, request: EdgeRequest, tokenCount: RateCount | undefined): Promise<EdgeDecision> {
  const pathname = request.pathname;
  if (pathname !== '/api' && !pathname.startsWith('/api/') && pathname !== MCP_PATH) {
    if (reachesApiFolder(pathname)) return fixedAnswer(edge, 404, 'not-found', request, {}, STATIC_SCOPE);
    const method = request.method === 'GET' ? 'GET' : request.method.toUpperCase();
    if (pathname === HEALTH_PATH && (method === 'GET' || method === 'HEAD')) return health(edge, request);
    if (method === 'GET' || method === 'HEAD') return STATIC;
    // Decided here, not by each runtime's file server, so both answer other methods alike.
    return fixedAnswer(edge, 405, 'method-not-allowed', request, STATIC_NOT_ALLOWED_HEADERS, STATIC_SCOPE);
  }
  const method = request.method === 'GET' ? 'GET' : request.method.toUpperCase();
  if (method === 'OPTIONS') return respond(edge, 204, undefined, request, PREFLIGHT_HEADERS, '');
  if (!edge.rateLimit) return decideApi(edge, request, method, await verify(edge, request.header('authorization')));
  return decideCounted(edge, edge.rateLimit, request, method, tokenCount);
}

/** GET /healthz: up, and which data it serves; never cached. */
async function health(edge: Edge, request: EdgeRequest): Promise<EdgeResponse> {
  const text = healthBody((await currentRoot(edge.index)).version);
  edge.health ??= { text, sha256: await sha256Hex(new TextEncoder().encode(text)) };
  return respond(edge, 200, edge.health, request, HEALTH_HEADERS, HEALTH_SCOPE);
}

/**
 * An /api/ or /mcp request under a limit. A token already verified counts against its digest; any
 * other request counts against its client address first, and past the limit it gets the 429
 * without its token being hashed. A valid token seen for the first time by this core so
 * counts once against its address as well, then against its digest.
 */
async function decideCounted(
  edge: Edge,
  rateLimit: EdgeRateLimit,
  request: EdgeRequest,
  method: string,
  tokenCount: RateCount | undefined,
): Promise<CountedResponse> {
  const authorization = request.header('authorization');
  let verdict: Verdict | undefined = authorization === null ? undefined : edge.verified.get(authorization);
  let count: RateCount | undefined;
  if (!verdict) {
    count = await rateLimit.count('address', request.client ?? '');
    if (!count.allowed) return tooManyRequests(edge, rateLimit, request, count);
    verdict = await verify(edge, authorization);
  }
  if (typeof verdict !== 'object') return countedAnswer(await decideApi(edge, request, method, verdict), count);
  count = tokenCount ?? (await rateLimit.count('token', verdict.key));
  if (!count.allowed) return tooManyRequests(edge, rateLimit, request, count);
  const answer = await decideApi(edge, request, method, verdict);
  // Only a remembered token is counted against its digest alone next time.
  return countedAnswer(
    answer,
    count,
    authorization !== null && edge.verified.has(authorization) ? verdict.key : undefined,
  );
}

/**
 * The shared answer with this request's RateLimit state, where the runtime knows it; with the
 * key a repeat of the request is counted under, when it has one (see CountedResponse).
 */
export function countedAnswer(
  answer: EdgeResponse | McpHandOff,
  count: RateCount | undefined,
  tokenKey?: string,
): CountedResponse {
  const { remaining, resetSeconds } = count ?? {};
  return {
    type: 'counted',
    answer,
    rateLimit:
      remaining === undefined || resetSeconds === undefined ? undefined : rateLimitState(remaining, resetSeconds),
    tokenKey,
  };
}

/** The 429: Retry-After and the body name the seconds until the window resets (the window's length when unknown). */
async function tooManyRequests(
  edge: Edge,
  { limit }: EdgeRateLimit,
  request: EdgeRequest,
  count: RateCount,
): Promise<CountedResponse> {
  const seconds = count.resetSeconds ?? limit.seconds;
  let body = edge.tooMany.find(seconds);
  if (!body) {
    const text = tooManyRequestsBody(limit, seconds);
    body = { text, sha256: await sha256Hex(new TextEncoder().encode(text)) };
    edge.tooMany.set(seconds, body);
  }
  const answer = await respond(edge, 429, body, request, { 'Retry-After': String(seconds), ...ERROR_HEADERS }, '');
  return countedAnswer(answer, { allowed: false, remaining: 0, resetSeconds: seconds });
}

/** An /api/ or /mcp request (not OPTIONS), once any limit has let it through. */
async function decideApi(
  edge: Edge,
  request: EdgeRequest,
  method: string,
  verdict: Verdict,
): Promise<EdgeResponse | McpHandOff> {
  // The token is checked before anything else, so nothing about the API leaks without one.
  if (typeof verdict !== 'object') {
    const name = verdict === 'missing' ? 'token-required' : 'token-invalid';
    return fixedAnswer(edge, 401, name, request, UNAUTHORIZED_HEADERS);
  }
  const pathname = request.pathname;
  if (pathname === MCP_PATH) {
    edge.mcp ??= Object.freeze({
      type: 'mcp',
      headers: Object.freeze({ ...(await baseHeaders(edge)), ...edge.policy, ...ERROR_HEADERS }),
    });
    return edge.mcp;
  }
  const match = ENDPOINT.exec(pathname);
  const endpoint = match?.[1] ?? '';
  const suggest = match?.[2] !== undefined;
  const kind = kindById(endpoint);
  if (!kind && (endpoint !== RELEASES_ENDPOINT || suggest))
    return fixedAnswer(edge, 404, 'unknown-endpoint', request, ERROR_HEADERS);
  if (method !== 'GET' && method !== 'HEAD')
    return fixedAnswer(edge, 405, 'method-not-allowed', request, NOT_ALLOWED_HEADERS);
  const resolved = await resolveQuery(edge, kind ? kind.id : RELEASES_ENDPOINT, suggest, request.query);
  if (resolved.type === 'unknown-release') return fixedAnswer(edge, 404, 'release-not-found', request, ERROR_HEADERS);
  const { release, version } = resolved.scope;
  const pinned = release !== undefined;
  const extra: Headers =
    resolved.status === 404
      ? pinned
        ? { 'X-Data-Version': version, ...ERROR_HEADERS }
        : ERROR_HEADERS
      : pinned
        ? { 'X-Data-Version': version, ...PINNED_HEADERS }
        : FOUND_HEADERS;
  const body = await bodyOf(edge, resolved);
  const scopeKey = release ?? '';
  return resolved.status === 200
    ? serveBody(edge, body, request, extra, scopeKey)
    : respond(edge, 404, body, request, extra, scopeKey);
}

/** A token that passed, or why the request has none. */
type Verdict = VerifiedToken | 'missing' | 'invalid';

async function verify(edge: Edge, authorization: string | null): Promise<Verdict> {
  if (authorization === null) return 'missing';
  const known = edge.verified.get(authorization);
  if (known) return known;
  const token = presentedToken(authorization);
  if (token === '') return 'missing';
  // Runtimes join repeated headers with ", " and a configured token cannot hold a comma (both
  // lists are comma-separated): several Authorization headers are refused, whatever they carry.
  if (token.includes(',')) return 'invalid';
  const index = await configuredIndex(token, edge.tokenDigests);
  const digest = edge.tokenDigests[index];
  if (!digest) return 'invalid';
  const verified = { key: hexOf(digest), name: edge.tokenNames[index] ?? digestPrefix(digest) };
  if (edge.verified.size < MEMO_LIMITS.verified) edge.verified.set(authorization, verified);
  return verified;
}

/** What answers `query` on an endpoint (src/contract/resolve.ts), remembered for short queries. */
async function resolveQuery(edge: Edge, endpoint: string, suggest: boolean, query: string): Promise<Resolved> {
  const key = `${suggest ? 's' : 'q'}${endpoint}?${query}`;
  const known = query.length > MEMO_KEY_LENGTH ? undefined : edge.resolved.find(key);
  if (known) return known;
  const params = new URLSearchParams(query);
  const resolved = await resolve(edge.index, {
    endpoint: endpoint as Parameters<typeof resolve>[1]['endpoint'],
    suggest,
    search: params.get('search'),
    release: params.get('release'),
  });
  if (query.length <= MEMO_KEY_LENGTH) edge.resolved.set(key, resolved);
  return resolved;
}

/** The body of a resolved answer; a made one gets its SHA-256 once. */
async function bodyOf(edge: Edge, resolved: Resolved & { type: 'body' | 'made' }): Promise<Body> {
  if (resolved.type === 'body') return { stored: resolved.body };
  let body = edge.madeBodies.get(resolved);
  if (!body) {
    body = { text: resolved.text, sha256: await sha256Hex(new TextEncoder().encode(resolved.text)) };
    edge.madeBodies.set(resolved, body);
  }
  return body;
}

/** One of the edge's fixed answers (401, unknown endpoint, ...), with the current data version. */
async function fixedAnswer(
  edge: Edge,
  status: number,
  name: FixedBodyName,
  request: EdgeRequest,
  extra: Headers,
  scopeKey = '',
): Promise<EdgeResponse> {
  let stored = edge.fixed.get(name);
  if (stored === undefined) {
    stored = (await currentRoute(edge.index, fixedRoute(name))).body;
    edge.fixed.set(name, stored);
  }
  return respond(edge, status, { stored }, request, extra, scopeKey);
}

/** The encoding the request's Accept-Encoding chooses. */
function encodingFor(edge: Edge, request: EdgeRequest): Encoding {
  const accept = request.header('accept-encoding');
  if (accept === null) return 'identity';
  return accept.length > MEMO_KEY_LENGTH ? chooseEncoding(accept) : edge.encodings.get(accept, chooseEncoding);
}

const newBodyAnswers = (): BodyAnswers => [];
const bodyKey = (body: Body | undefined) => (!body ? '' : 'stored' in body ? body.stored : `made:${body.sha256}`);

/** The headers every /api/ answer carries, with the current data version (read once). */
async function baseHeaders(edge: Edge): Promise<Headers> {
  edge.baseHeaders ??= {
    ...COMMON_HEADERS,
    'X-Data-Version': (await currentRoot(edge.index)).version,
  };
  return edge.baseHeaders;
}

/** The answer with this status, body and extra headers, made once per scope, encoding and method. */
async function respond(
  edge: Edge,
  status: number,
  body: Body | undefined,
  request: EdgeRequest,
  extra: Headers,
  scopeKey: string,
): Promise<EdgeResponse> {
  const encoding = body === undefined ? 'identity' : encodingFor(edge, request);
  const method = request.method;
  const head = method === 'HEAD' || (method !== 'GET' && method.toUpperCase() === 'HEAD');
  const answers = edge.answers.get(`${status}\0${bodyKey(body)}\0${scopeKey}`, newBodyAnswers);
  const slot = answerSlot(encoding, head);
  const known = answers[slot];
  if (known) return known;
  const policy = outsideApi(scopeKey) ? undefined : edge.policy;
  const headers: Record<string, string> = { ...(await baseHeaders(edge)), ...policy, ...extra };
  if (body !== undefined) {
    headers['Content-Type'] = JSON_CONTENT_TYPE;
    headers['Vary'] = 'Accept-Encoding';
    if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
    // Each encoding of a body has its own ETag.
    if (status === 200) headers['ETag'] = etagFor('stored' in body ? body.stored : body.sha256, encoding);
  }
  const source: BodySource | undefined =
    body === undefined ? undefined : Object.freeze('stored' in body ? { stored: body.stored } : { text: body.text });
  const answer: EdgeResponse = Object.freeze({
    type: 'respond',
    status,
    headers: Object.freeze(headers),
    body: source,
    encoding,
    omitBody: head,
  });
  answers[slot] = answer;
  return answer;
}

/** 200 with a body, or 304 when the client already holds this encoding of it. */
async function serveBody(
  edge: Edge,
  body: Body,
  request: EdgeRequest,
  extra: Headers,
  scopeKey: string,
): Promise<EdgeResponse> {
  const found = await respond(edge, 200, body, request, extra, scopeKey);
  const ifNoneMatch = request.header('if-none-match');
  if (ifNoneMatch === null || !ifNoneMatchHits(ifNoneMatch, found.headers['ETag'] ?? '')) return found;
  const answers = edge.answers.get(`200\0${bodyKey(body)}\0${scopeKey}`, newBodyAnswers);
  const slot = notModifiedSlot(found.encoding);
  answers[slot] ??= notModified(found);
  return answers[slot];
}

/** The 304 of an answer: its headers but the body's type and encoding, no body. */
function notModified(found: EdgeResponse): EdgeResponse {
  const { 'Content-Type': _type, 'Content-Encoding': _encoding, ...headers } = found.headers;
  return Object.freeze({
    type: 'respond',
    status: 304,
    headers: Object.freeze(headers),
    encoding: 'identity',
    omitBody: true,
  });
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
