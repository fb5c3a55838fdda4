// The edge core: a pure function from a request (method, URL, headers) to a decision, the
// same in every runtime. Adapters (src/server, src/worker/worker.ts) only translate it: they
// fetch the bytes of the chosen body in the chosen encoding and send them.
import {
  METHOD_NOT_ALLOWED_BODY,
  NOT_FOUND_BODY,
  RELEASE_NOT_FOUND_BODY,
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
  JSON_CONTENT_TYPE,
  PREFLIGHT_HEADERS,
} from '../contract/headers.ts';
import { API_DIR, notFoundPath, pinnedPath, queryPath, RELEASES_LIST_PATH } from '../contract/paths.ts';
import { parseRelease } from '../contract/releases.ts';
import { parseSearch } from '../contract/search-query.ts';
import { kindById } from '../schema/kinds.ts';
import type { Manifest } from '../schema/manifest.ts';
import { chooseEncoding, etagFor, ifNoneMatchHits, type Encoding } from './negotiation.ts';
import { isConfiguredToken, presentedToken, type Digest } from './tokens.ts';

export interface EdgeRequest {
  method: string;
  url: URL;
  /** A header's value, several values of one header joined by ", "; null when absent. */
  header(name: string): string | null;
}

/** What to send: a prebuilt API file (a path of the manifest) or a fixed text. */
export type BodySource = { file: string } | { text: string };

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

/** `static`: not the API's; the adapter serves the static site. */
export type EdgeDecision = { type: 'static' } | EdgeResponse;

export interface EdgeOptions {
  manifest: Manifest;
  tokenDigests: readonly Digest[];
}

const ENDPOINT = /^\/api\/([a-z]+)\/?$/;
/** GET /api/releases: the list of data releases. */
const RELEASES_ENDPOINT = 'releases';

/** Where a request's answer comes from: the current data, or one release (its id and data version). */
type DataSource = { pinned: false } | { pinned: true; id: string; version: string };

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

  const releases = new Map(manifest.releases.map((release) => [release.id, release.version]));

  /** 200 with a prebuilt file, or 304 when the client already holds this encoding of it. */
  function serveFile(
    path: string,
    sha256: string,
    request: EdgeRequest,
    extra: Record<string, string> = { 'Cache-Control': CACHE_FOUND },
  ): EdgeResponse {
    const decision = respond(200, { file: path }, request, extra);
    const etag = etagFor(sha256, decision.encoding);
    decision.headers['ETag'] = etag;
    if (!ifNoneMatchHits(request.header('if-none-match'), etag)) return decision;
    const { 'Content-Type': _type, 'Content-Encoding': _encoding, ...headers } = decision.headers;
    return { type: 'respond', status: 304, headers, encoding: 'identity', omitBody: true };
  }

  /** The data a request asks for by its first `release` parameter; undefined for an unknown release. */
  function dataSource(request: EdgeRequest): DataSource | undefined {
    const id = parseRelease(request.url.searchParams.get('release'));
    if (id === undefined) return { pinned: false };
    const version = releases.get(id);
    return version === undefined ? undefined : { pinned: true, id, version };
  }

  /**
   * The file at `path` (a path of the current API; undefined: no answer can exist) from the
   * data of `source`, or its not-found file. Pinned answers are that release's files, with its
   * data version, cached for good: a release never changes.
   */
  function answer(path: string | undefined, notFound: string, source: DataSource, request: EdgeRequest): EdgeResponse {
    const at = (current: string) => (source.pinned ? pinnedPath(current, source.id) : current);
    const version: Record<string, string> = source.pinned ? { 'X-Data-Version': source.version } : {};
    const file = path === undefined ? undefined : manifest.files[at(path)];
    if (path === undefined || !file)
      return respond(404, { file: at(notFound) }, request, { ...version, 'Cache-Control': CACHE_ERROR });
    const cache = source.pinned ? CACHE_PINNED : CACHE_FOUND;
    return serveFile(at(path), file.sha256, request, { ...version, 'Cache-Control': cache });
  }

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
    const endpoint = ENDPOINT.exec(pathname)?.[1] ?? '';
    const kind = kindById(endpoint);
    if (!kind && endpoint !== RELEASES_ENDPOINT)
      return respond(404, { text: UNKNOWN_ENDPOINT_BODY }, request, { 'Cache-Control': CACHE_ERROR });
    if (method !== 'GET' && method !== 'HEAD') {
      return respond(405, { text: METHOD_NOT_ALLOWED_BODY }, request, {
        Allow: ALLOWED_METHODS,
        'Cache-Control': CACHE_ERROR,
      });
    }
    if (!kind) return answer(RELEASES_LIST_PATH, RELEASES_LIST_PATH, { pinned: false }, request);
    const source = dataSource(request);
    if (!source) return respond(404, { text: RELEASE_NOT_FOUND_BODY }, request, { 'Cache-Control': CACHE_ERROR });
    const path = queryPath(kind.id, parseSearch(request.url.searchParams.get('search')));
    return answer(path, notFoundPath(kind.id), source, request);
  };
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
