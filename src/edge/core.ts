// The edge core: a pure function from a request (method, URL, headers) to a decision, the
// same in every runtime. Adapters (src/server, src/worker/worker.ts) only translate it: they
// fetch the bytes of the chosen file in the chosen encoding and send them. Each answer is
// made once and shared (frozen), and the work a request repeats (negotiation, the query, a
// token already verified) is remembered in bounded memos, so the common request allocates
// almost nothing. A near-miss suggestion is the one answer made from several files: the
// decision names the index files not read yet, and the answer comes from their texts.
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
import { createHash } from 'node:crypto';
import { METHOD_NOT_ALLOWED_BODY, suggestBody } from '../contract/messages.ts';
import { API_DIR, fixedBodyPath, notFoundPath, pinnedPath, queryPath, RELEASES_LIST_PATH } from '../contract/paths.ts';
import { parseRelease } from '../contract/releases.ts';
import { parseSearch } from '../contract/search-query.ts';
import { nearSuggestions, type NearShard, type NearPlan, parseShard, planSuggestion } from '../contract/suggest.ts';
import { type Kind, kindById, kindIds, type KindId } from '../schema/kinds.ts';
import type { BuildManifest } from '../schema/manifest.ts';
import { boundedMemo, type Memo } from './memo.ts';
import { chooseEncoding, etagFor, ifNoneMatchHits, type Encoding } from './negotiation.ts';
import { isConfiguredToken, presentedToken, type Digest } from './tokens.ts';

export interface EdgeRequest {
  method: string;
  /** The URL's path as WHATWG URL parsing gives it (dot segments resolved, still percent-encoded). */
  pathname: string;
  /** The URL's query without its "?" ('' when there is none), as WHATWG URL parsing gives it. */
  query: string;
  /** A header's value, several values of one header joined by ", "; null when absent. */
  header(name: string): string | null;
}

/**
 * What to send, in the decision's encoding: a file of the build (a path of its manifest), or a
 * text made for a query from the build's index (a near-miss suggestion), which the adapter
 * encodes (src/edge/encode.ts).
 */
export type BodySource = { readonly file: string } | { readonly text: string };

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
 * An answer that needs files of the suggestion index first (`manifest.index`): the adapter
 * reads each (identity, checked against the manifest, as UTF-8 text, in this order) and sends
 * what `answer` gives for their texts.
 */
export interface EdgeLookup {
  readonly type: 'lookup';
  readonly files: readonly string[];
  answer(texts: readonly string[]): EdgeResponse;
}

/** `static`: not the API's; the adapter serves the static site. */
export type EdgeDecision = { readonly type: 'static' } | EdgeResponse | EdgeLookup;

export interface EdgeOptions {
  manifest: BuildManifest;
  tokenDigests: readonly Digest[];
}

type Headers = Readonly<Record<string, string>>;

const ENDPOINT = /^\/api\/([a-z]+)(\/suggest)?\/?$/;
const STATIC: EdgeDecision = Object.freeze({ type: 'static' });
const ERROR_HEADERS: Headers = { 'Cache-Control': CACHE_ERROR };
const UNAUTHORIZED_HEADERS: Headers = { ...CHALLENGE_HEADERS, ...ERROR_HEADERS };
const NOT_ALLOWED_HEADERS: Headers = { Allow: ALLOWED_METHODS, ...ERROR_HEADERS };
const FOUND_HEADERS: Headers = { 'Cache-Control': CACHE_FOUND };
/**
 * A method other than GET or HEAD on the static site: the API's 405 body, with the site's own
 * Allow. Its answers are remembered apart from the API's 405 (a key no file has), whose Allow differs.
 */
const STATIC_NOT_ALLOWED = {
  file: '\0static\0method-not-allowed',
  headers: { Allow: STATIC_METHODS, ...ERROR_HEADERS },
  body: { text: METHOD_NOT_ALLOWED_BODY, sha256: '' },
};
/** Distinct values each memo keeps: far above what real clients send, small in memory. */
const MEMO_LIMITS = { encodings: 256, queries: 4096, answers: 4096, verified: 64, shards: 256, near: 4096 };
/** The edge's fixed error bodies, and each kind's not-found envelope: one string each, made once. */
const FIXED = {
  notFound: fixedBodyPath('not-found'),
  tokenRequired: fixedBodyPath('token-required'),
  tokenInvalid: fixedBodyPath('token-invalid'),
  unknownEndpoint: fixedBodyPath('unknown-endpoint'),
  methodNotAllowed: fixedBodyPath('method-not-allowed'),
  releaseNotFound: fixedBodyPath('release-not-found'),
};
/** GET /api/releases: the list of data releases. */
const RELEASES_ENDPOINT = 'releases';
const ENCODINGS: readonly Encoding[] = ['identity', 'br', 'gzip'];
/**
 * The answers of one file, by where they sit: 0-5 the GET and HEAD answers of each encoding,
 * 6-8 the 304 of each encoding. A file is always answered with the same status.
 */
type FileAnswers = (EdgeResponse | undefined)[];
const answerSlot = (encoding: Encoding, head: boolean) => ENCODINGS.indexOf(encoding) * 2 + (head ? 1 : 0);
const notModifiedSlot = (encoding: Encoding) => 6 + ENCODINGS.indexOf(encoding);
/** Longer header values and queries are worked out every time rather than remembered. */
const MEMO_KEY_LENGTH = 256;

/** A release's answers carry its data version; found ones are cached for good (a release never changes). */
interface ReleaseHeaders {
  found: Headers;
  notFound: Headers;
}

/**
 * What answers a request on an endpoint: a file of the build, with its status and headers, or
 * (suggestions only) the near misses of `key` among the records the index files `shards` hold.
 */
type Target = { status: 200 | 404; file: string; headers: Headers; near?: undefined } | NearTarget;
interface NearTarget {
  status: 200;
  /** Names the answer in the memos: the kind, the release and the key. */
  file: string;
  headers: Headers;
  near: NearPlan & { noun: string };
}

/** A body made for a query: its text and that text's SHA-256 (its ETag's source). */
interface MadeBody {
  text: string;
  sha256: string;
}
const UNKNOWN_RELEASE: Target = { status: 404, file: FIXED.releaseNotFound, headers: ERROR_HEADERS };
const RELEASES_LIST: Target = { status: 200, file: RELEASES_LIST_PATH, headers: FOUND_HEADERS };

/** One build's edge: its manifest, the configured tokens, and what it has worked out so far. */
interface Edge {
  manifest: BuildManifest;
  tokenDigests: readonly Digest[];
  baseHeaders: Headers;
  encodings: Memo<string, Encoding>;
  /** The headers of each data release's answers, by release id. */
  releases: ReadonlyMap<string, ReleaseHeaders>;
  /** By kind, then by query: the file that answers it; the same for suggestion queries. */
  queries: ReadonlyMap<KindId, Memo<string, Target>>;
  suggestions: ReadonlyMap<KindId, Memo<string, Target>>;
  /** Parsed near-miss shards by path, and near-miss bodies by their target's `file`. */
  shards: Memo<string, NearShard>;
  nearBodies: Memo<string, MadeBody>;
  /** By file ('' for answers without a body). */
  answers: Memo<string, FileAnswers>;
  /**
   * Only Authorization values that passed are remembered, so the set holds at most the
   * spellings of configured tokens; any other value is hashed and compared in constant time
   * every time. A reload makes a new core, so a removed token stops working there.
   */
  verified: Set<string>;
}

export function createEdge({ manifest, tokenDigests }: EdgeOptions): (request: EdgeRequest) => EdgeDecision {
  const edge: Edge = {
    manifest,
    tokenDigests,
    baseHeaders: { ...COMMON_HEADERS, 'X-Data-Version': manifest.version },
    releases: new Map(
      manifest.releases.map(({ id, version }) => [
        id,
        {
          found: { 'X-Data-Version': version, 'Cache-Control': CACHE_PINNED },
          notFound: { 'X-Data-Version': version, ...ERROR_HEADERS },
        },
      ]),
    ),
    encodings: boundedMemo(MEMO_LIMITS.encodings),
    queries: new Map(kindIds.map((id) => [id, boundedMemo(MEMO_LIMITS.queries)])),
    suggestions: new Map(kindIds.map((id) => [id, boundedMemo(MEMO_LIMITS.queries)])),
    shards: boundedMemo(MEMO_LIMITS.shards),
    nearBodies: boundedMemo(MEMO_LIMITS.near),
    answers: boundedMemo(MEMO_LIMITS.answers),
    verified: new Set(),
  };
  return (request) => decide(edge, request);
}

function decide(edge: Edge, request: EdgeRequest): EdgeDecision {
  const pathname = request.pathname;
  if (pathname !== '/api' && !pathname.startsWith('/api/')) {
    if (reachesApiFolder(pathname)) return respond(edge, 404, FIXED.notFound, request);
    const method = request.method === 'GET' ? 'GET' : request.method.toUpperCase();
    if (method === 'GET' || method === 'HEAD') return STATIC;
    // Decided here, not by each runtime's file server, so both answer other methods alike.
    return respond(edge, 405, STATIC_NOT_ALLOWED.file, request, STATIC_NOT_ALLOWED.headers, STATIC_NOT_ALLOWED.body);
  }
  const method = request.method === 'GET' ? 'GET' : request.method.toUpperCase();
  if (method === 'OPTIONS') return respond(edge, 204, undefined, request, PREFLIGHT_HEADERS);
  // The token is checked before anything else, so nothing about the API leaks without one.
  const authorization = authorized(edge, request.header('authorization'));
  if (authorization !== 'yes') {
    const body = authorization === 'missing' ? FIXED.tokenRequired : FIXED.tokenInvalid;
    return respond(edge, 401, body, request, UNAUTHORIZED_HEADERS);
  }
  const match = ENDPOINT.exec(pathname);
  const endpoint = match?.[1] ?? '';
  const suggest = match?.[2] !== undefined;
  const kind = kindById(endpoint);
  if (!kind && (endpoint !== RELEASES_ENDPOINT || suggest))
    return respond(edge, 404, FIXED.unknownEndpoint, request, ERROR_HEADERS);
  if (method !== 'GET' && method !== 'HEAD')
    return respond(edge, 405, FIXED.methodNotAllowed, request, NOT_ALLOWED_HEADERS);
  const target = !kind ? RELEASES_LIST : targetFor(edge, kind, request.query, suggest);
  if (target.near) return nearAnswer(edge, target, request);
  return target.status === 200
    ? serveFile(edge, target.file, request, target.headers)
    : respond(edge, 404, target.file, request, target.headers);
}

function authorized(edge: Edge, authorization: string | null): 'yes' | 'missing' | 'invalid' {
  if (authorization === null) return 'missing';
  if (edge.verified.has(authorization)) return 'yes';
  const token = presentedToken(authorization);
  if (token === '') return 'missing';
  // Runtimes join repeated headers with ", " and a configured token cannot hold a comma (both
  // lists are comma-separated): several Authorization headers are refused, whatever they carry.
  if (token.includes(',')) return 'invalid';
  if (!isConfiguredToken(token, edge.tokenDigests)) return 'invalid';
  if (edge.verified.size < MEMO_LIMITS.verified) edge.verified.add(authorization);
  return 'yes';
}

/**
 * What answers `query` on the endpoint of `kind` (or its suggestions): the file of its
 * `search` from the data its `release` pins (the current data without one), that data's
 * not-found file, a near-miss lookup, or the 404 of an unknown release.
 */
function targetFor(edge: Edge, kind: Kind, query: string, suggest: boolean): Target {
  const resolve = (): Target => {
    const params = new URLSearchParams(query);
    const id = parseRelease(params.get('release'));
    const release = id === undefined ? undefined : edge.releases.get(id);
    if (id !== undefined && !release) return UNKNOWN_RELEASE;
    const at = (path: string) => (id === undefined ? path : pinnedPath(path, id));
    const found = release?.found ?? FOUND_HEADERS;
    if (suggest) return suggestionTarget(edge, kind, params.get('search'), at, found, id ?? '');
    const path = queryPath(kind.id, parseSearch(params.get('search')));
    if (path !== undefined && at(path) in edge.manifest.files) return { status: 200, file: at(path), headers: found };
    return { status: 404, file: at(notFoundPath(kind.id)), headers: release?.notFound ?? ERROR_HEADERS };
  };
  const memo = (suggest ? edge.suggestions : edge.queries).get(kind.id);
  return query.length > MEMO_KEY_LENGTH || !memo ? resolve() : memo.get(query, resolve);
}

/** A suggestion query's answer: a prebuilt file, or the near misses of its key (src/contract/suggest.ts). */
function suggestionTarget(
  edge: Edge,
  kind: Kind,
  search: string | null,
  at: (path: string) => string,
  headers: Headers,
  releaseId: string,
): Target {
  const { files, index } = edge.manifest;
  const plan = planSuggestion(kind.id, search, (path) => path in files || path in index, at);
  if (plan.type === 'file') return { status: 200, file: plan.path, headers };
  // A NUL cannot be in a path of the manifest: this key names no file.
  const file = `\0near\0${kind.id}\0${releaseId}\0${plan.key}`;
  return { status: 200, file, headers, near: { ...plan, noun: kind.noun } };
}

/**
 * The near misses of a suggestion query: answered now when its body or every shard it needs is
 * remembered, else a lookup of the shards not read yet.
 */
function nearAnswer(edge: Edge, target: NearTarget, request: EdgeRequest): EdgeResponse | EdgeLookup {
  const serve = (body: MadeBody) => serveFile(edge, target.file, request, target.headers, body);
  const made = edge.nearBodies.find(target.file);
  if (made) return serve(made);
  // The shards remembered now are held here: the memo may let them go before a lookup returns.
  const known = new Map<string, NearShard>();
  const missing: NearPlan['shards'][number][] = [];
  for (const file of target.near.shards) {
    const shard = edge.shards.find(file.path);
    if (shard) known.set(file.prefix, shard);
    else missing.push(file);
  }
  const answer = (texts: readonly string[]) => {
    missing.forEach((file, index) => {
      const shard = parseShard(texts[index] ?? '');
      known.set(file.prefix, shard);
      edge.shards.set(file.path, shard);
    });
    const text = suggestBody(target.near.noun, nearSuggestions(target.near, known));
    const body = { text, sha256: createHash('sha256').update(text).digest('hex') };
    edge.nearBodies.set(target.file, body);
    return serve(body);
  };
  if (missing.length === 0) return answer([]);
  return Object.freeze({ type: 'lookup', files: missing.map((file) => file.path), answer });
}

/** The encoding the request's Accept-Encoding chooses. */
function encodingFor(edge: Edge, request: EdgeRequest): Encoding {
  const accept = request.header('accept-encoding');
  if (accept === null) return 'identity';
  return accept.length > MEMO_KEY_LENGTH ? chooseEncoding(accept) : edge.encodings.get(accept, chooseEncoding);
}

const newFileAnswers = (): FileAnswers => [];

/**
 * The answer with this status, body and extra headers, made once per encoding and method. The
 * body is the build's `file`, or, given `made`, that text (`file` then only names it).
 */
function respond(
  edge: Edge,
  status: number,
  file: string | undefined,
  request: EdgeRequest,
  extra: Headers = {},
  made?: MadeBody,
): EdgeResponse {
  const encoding = file === undefined ? 'identity' : encodingFor(edge, request);
  const method = request.method;
  const head = method === 'HEAD' || (method !== 'GET' && method.toUpperCase() === 'HEAD');
  const answers = edge.answers.get(file ?? '', newFileAnswers);
  const slot = answerSlot(encoding, head);
  const known = answers[slot];
  if (known) return known;
  const headers: Record<string, string> = { ...edge.baseHeaders, ...extra };
  if (file !== undefined) {
    headers['Content-Type'] = JSON_CONTENT_TYPE;
    headers['Vary'] = 'Accept-Encoding';
    if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
    // Each encoding of a body has its own ETag.
    const sha256 = made ? made.sha256 : edge.manifest.files[file]?.sha256;
    if (status === 200) headers['ETag'] = etagFor(sha256 ?? '', encoding);
  }
  const body = file === undefined ? undefined : Object.freeze(made ? { text: made.text } : { file });
  const answer = Object.freeze({
    type: 'respond',
    status,
    headers: Object.freeze(headers),
    body,
    encoding,
    omitBody: head,
  });
  answers[slot] = answer;
  return answer;
}

/** 200 with a prebuilt file (or a made body), or 304 when the client already holds this encoding of it. */
function serveFile(edge: Edge, path: string, request: EdgeRequest, extra: Headers, made?: MadeBody): EdgeResponse {
  const found = respond(edge, 200, path, request, extra, made);
  const ifNoneMatch = request.header('if-none-match');
  if (ifNoneMatch === null || !ifNoneMatchHits(ifNoneMatch, found.headers['ETag'] ?? '')) return found;
  const answers = edge.answers.get(path, newFileAnswers);
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
