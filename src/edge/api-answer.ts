// The resolve step of the edge core: what answers an /api/ request whose token passed, by its
// endpoint, method, query and release (src/contract/resolve.ts: the one rule from a request to
// a body, shared with the offline client).
import { ALLOWED_METHODS, CACHE_FOUND, CACHE_PINNED } from '../contract/headers.ts';
import { resolve, type Resolved, type RouteIndex } from '../contract/resolve.ts';
import { kindById } from '../schema/kinds.ts';
import { type AnswerCache, type Body, CURRENT_DATA, ERROR_HEADERS, type MadeBody, madeBody } from './answers.ts';
import type { EdgeRequest, EdgeResponse, HeaderRecord } from './decision.ts';
import { boundedMemo, type Memo } from './memo.ts';
import { methodOf } from './route.ts';

const ENDPOINT = /^\/api\/([a-z]+)(\/suggest)?\/?$/;
/** GET /api/releases: the list of data releases. */
const RELEASES_ENDPOINT = 'releases';
const NOT_ALLOWED_HEADERS: HeaderRecord = { Allow: ALLOWED_METHODS, ...ERROR_HEADERS };
const FOUND_HEADERS: HeaderRecord = { 'Cache-Control': CACHE_FOUND };
const PINNED_HEADERS: HeaderRecord = { 'Cache-Control': CACHE_PINNED };
/** Queries remembered with what answers them; longer queries are resolved every time. */
const QUERIES = { entries: 4096, length: 256 };

type Endpoint = Parameters<typeof resolve>[1]['endpoint'];
/** A query's key among those remembered: the endpoint (and whether it suggests), and the query. */
const queryKey = (endpoint: string, suggest: boolean, query: string) => `${suggest ? 's' : 'q'}${endpoint}?${query}`;

/** The answers of one build's API to requests with a valid token. */
export function apiAnswers(index: RouteIndex, answers: AnswerCache): (request: EdgeRequest) => Promise<EdgeResponse> {
  const resolvedQueries: Memo<string, Resolved> = boundedMemo(QUERIES.entries);
  // The SHA-256 of each made body (near misses), by its resolution.
  const madeBodies = new WeakMap<Resolved, MadeBody>();

  /** What answers `query` on an endpoint, remembered for short queries. */
  const resolveQuery = async (endpoint: Endpoint, suggest: boolean, query: string): Promise<Resolved> => {
    const key = queryKey(endpoint, suggest, query);
    const known = query.length > QUERIES.length ? undefined : resolvedQueries.find(key);
    if (known) return known;
    const params = new URLSearchParams(query);
    const search = params.get('search');
    const resolved = await resolve(index, { endpoint, suggest, search, release: params.get('release') });
    if (query.length <= QUERIES.length) resolvedQueries.set(key, resolved);
    return resolved;
  };

  /** The body of a resolved answer; a made one gets its SHA-256 once. */
  const bodyOf = async (resolved: Resolved & { type: 'body' | 'made' }): Promise<Body> => {
    if (resolved.type === 'body') return { stored: resolved.body };
    let body = madeBodies.get(resolved);
    if (!body) {
      body = await madeBody(resolved.text);
      madeBodies.set(resolved, body);
    }
    return body;
  };

  return async (request) => {
    const match = ENDPOINT.exec(request.pathname);
    const endpoint = match?.[1] ?? '';
    const suggest = match?.[2] !== undefined;
    const kind = kindById(endpoint);
    if (!kind && (endpoint !== RELEASES_ENDPOINT || suggest))
      return answers.fixed(404, 'unknown-endpoint', request, ERROR_HEADERS);
    const method = methodOf(request);
    if (method !== 'GET' && method !== 'HEAD')
      return answers.fixed(405, 'method-not-allowed', request, NOT_ALLOWED_HEADERS);
    const resolved = await resolveQuery((kind ? kind.id : RELEASES_ENDPOINT) as Endpoint, suggest, request.query);
    if (resolved.type === 'unknown-release') return answers.fixed(404, 'release-not-found', request, ERROR_HEADERS);
    const { release, version } = resolved.scope;
    const pinned = release !== undefined;
    const extra: HeaderRecord =
      resolved.status === 404
        ? pinned
          ? { 'X-Data-Version': version, ...ERROR_HEADERS }
          : ERROR_HEADERS
        : pinned
          ? { 'X-Data-Version': version, ...PINNED_HEADERS }
          : FOUND_HEADERS;
    const body = await bodyOf(resolved);
    const scope = release ?? CURRENT_DATA;
    return resolved.status === 200
      ? answers.serveBody(body, request, extra, scope)
      : answers.respond(404, body, request, extra, scope);
  };
}
