// The one rule from a request to a body: (kind, suggest or search, search, release) -> the
// body that answers it, through the routing index of the data the request pins. The edge core
// and the offline client both answer with it, so the API and the bundles agree by construction.
// It reads through a RouteIndex, which each runtime implements over its own files (the Node
// server from memory, the Worker from its static assets, the client from a bundle).
import type { KindId } from '../schema/kind-ids.ts';
import { kindById } from '../schema/kinds.ts';
import { suggestBody } from './messages.ts';
import {
  notFoundRoute,
  queryRoute,
  RELEASES_ROUTE,
  suggestEmptyRoute,
  suggestFirstRoute,
  suggestKeyRoute,
  suggestLevelRoute,
  suggestShardRoute,
} from './paths.ts';
import { releaseIdParts } from '../schema/release-ids.ts';
import { parseRelease } from './releases.ts';
import { type IndexRoot, type IndexShard, routeIn, shardOf } from './route-index.ts';
import { classifySearch, type SearchText, searchQueryOf } from './search-query.ts';
import {
  type NearShard,
  nearSuggestions,
  parseShard,
  queryVariants,
  SHARD_ROOT_LENGTH,
  shardHolding,
} from './suggest.ts';

type MaybePromise<T> = T | Promise<T>;

/** The routing index and bodies of one build, as a runtime reads them. */
export interface RouteIndex {
  /** The root of the current data's index (release undefined) or of a release's; undefined for no such release. */
  root(release: string | undefined): MaybePromise<IndexRoot | undefined>;
  /** Shard `n` of that index. */
  shard(release: string | undefined, n: number): MaybePromise<IndexShard>;
  /** The text of a body (checked against its SHA-256): near-miss shards are read this way. */
  text(body: string): MaybePromise<string>;
}

/** Where a resolved answer comes from: the current data or a release, with its data version. */
export interface Scope {
  /** The release pinned, or undefined for the current data. */
  release: string | undefined;
  version: string;
}

/** What answers a request: a stored body with its status, a body made from the index, or no such release. */
export type Resolved =
  | { type: 'body'; status: 200 | 404; body: string; scope: Scope }
  | { type: 'made'; status: 200; text: string; scope: Scope }
  | { type: 'unknown-release' };

/** A request to an endpoint of the API, already split from its URL. */
export interface ApiQuery {
  /** A kind, or 'releases' for GET /api/releases. */
  endpoint: KindId | 'releases';
  suggest: boolean;
  /**
   * The first `search` parameter, URL-decoded (null when absent), read by the API's rule
   * (classifySearch); or a text already classified by its own rule (an MCP tool's argument).
   */
  search: string | null | SearchText;
  /** The first `release` parameter, URL-decoded; null when absent. */
  release: string | null;
}

const UNKNOWN_RELEASE: Resolved = Object.freeze({ type: 'unknown-release' });

/** The body of a route of the current data (the fixed bodies, the list of releases). */
export async function currentRoute(index: RouteIndex, route: string): Promise<{ body: string; scope: Scope }> {
  const root = await currentRoot(index);
  const body = await lookup(index, undefined, root, route);
  if (body === undefined) throw new Error(`The routing index lacks ${route}: rebuild with npm run build.`);
  return { body, scope: { release: undefined, version: root.version } };
}

/** The root of the current data's index, which every build has. */
export async function currentRoot(index: RouteIndex): Promise<IndexRoot> {
  const root = await index.root(undefined);
  if (!root) throw new Error('The build has no routing index: rebuild with npm run build.');
  return root;
}

export async function resolve(index: RouteIndex, query: ApiQuery): Promise<Resolved> {
  if (query.endpoint === 'releases') {
    const { body, scope } = await currentRoute(index, RELEASES_ROUTE);
    return { type: 'body', status: 200, body, scope };
  }
  const release = parseRelease(query.release);
  // An id of another shape names no release, and never reaches a path.
  if (release !== undefined && !releaseIdParts(release)) return UNKNOWN_RELEASE;
  const root = await index.root(release);
  if (!root) return UNKNOWN_RELEASE;
  const scope: Scope = { release, version: root.version };
  const at = (route: string) => lookup(index, release, root, route);
  const kind = query.endpoint;
  if (query.suggest) return suggestion(index, kind, query.search, scope, root);
  const route = queryRoute(kind, searchQueryOf(searchTextOf(query.search)));
  const found = route === undefined ? undefined : await at(route);
  if (found !== undefined) return { type: 'body', status: 200, body: found, scope };
  const notFound = await at(notFoundRoute(kind));
  if (notFound === undefined) throw new Error(`The routing index lacks ${notFoundRoute(kind)}.`);
  return { type: 'body', status: 404, body: notFound, scope };
}

/** A search as classified: the API's parameter by its rule, a text already classified as it is. */
const searchTextOf = (search: ApiQuery['search']): SearchText =>
  typeof search === 'string' || search === null ? classifySearch(search) : search;

async function lookup(
  index: RouteIndex,
  release: string | undefined,
  root: IndexRoot,
  route: string,
): Promise<string | undefined> {
  return routeIn(await index.shard(release, shardOf(route, root)), route);
}

/**
 * A suggestion: the prebuilt answer of an exact form (groups a to d), or the near misses of a
 * key of 4 or more characters among the near-miss shards its variants fall in.
 */
async function suggestion(
  index: RouteIndex,
  kind: KindId,
  search: ApiQuery['search'],
  scope: Scope,
  root: IndexRoot,
): Promise<Resolved> {
  const release = scope.release;
  const at = (route: string) => lookup(index, release, root, route);
  const answer = async (route: string): Promise<Resolved> => {
    const body = (await at(route)) ?? (await at(suggestEmptyRoute(kind)));
    if (body === undefined) throw new Error(`The routing index lacks ${suggestEmptyRoute(kind)}.`);
    return { type: 'body', status: 200, body, scope };
  };
  const text = searchTextOf(search);
  if (text.type === 'all') return answer(suggestFirstRoute(kind));
  if (text.type === 'digits') return answer(suggestLevelRoute(kind, text.digits));
  if (text.type === 'none') return answer(suggestEmptyRoute(kind));
  const { key } = text;
  if ((await at(suggestKeyRoute(kind, key))) !== undefined) return answer(suggestKeyRoute(kind, key));
  // The near-miss shard a variant falls in is its longest prefix that names one (shardHolding);
  // the index shards on that walk are read as it goes, and kept for the merge below.
  const indexShards = new Map<number, IndexShard>();
  const nearBody = (prefix: string) => {
    const route = suggestShardRoute(kind, prefix);
    const shard = indexShards.get(shardOf(route, root));
    return shard && routeIn(shard, route);
  };
  const isShard = (prefix: string) => nearBody(prefix) !== undefined;
  const prefixes = new Set<string>();
  for (const variant of queryVariants(key)) {
    for (let length = SHARD_ROOT_LENGTH; length <= variant.length; length++) {
      const n = shardOf(suggestShardRoute(kind, variant.slice(0, length)), root);
      if (!indexShards.has(n)) indexShards.set(n, await index.shard(release, n));
      if (!isShard(variant.slice(0, length))) break;
    }
    const prefix = shardHolding(variant, isShard);
    if (prefix !== undefined) prefixes.add(prefix);
  }
  if (prefixes.size === 0) return answer(suggestEmptyRoute(kind));
  const shards = new Map<string, NearShard>();
  for (const prefix of prefixes) shards.set(prefix, parseShard(await index.text(nearBody(prefix) ?? '')));
  const noun = kindById(kind)?.noun ?? kind;
  return { type: 'made', status: 200, text: suggestBody(noun, nearSuggestions({ key, isShard }, shards)), scope };
}
