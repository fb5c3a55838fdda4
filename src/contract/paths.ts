// Where the API lives in dist/ and how its answers are named: every answer is a route (a
// short key such as `trees/name/oaktree`) in the routing index of the data it belongs to (the
// current data, or one release's), and each route names a body stored once, by its SHA-256.
// The build writes this layout, the edge and the offline client read it: defined once.
import type { KindId } from '../schema/kind-ids.ts';
import type { FixedBodyName } from './messages.ts';
import type { SearchQuery } from './search-query.ts';

/** Where `npm start` serves the wiki and the API; the CLI's default address. */
export const LOCAL_ORIGIN = 'http://127.0.0.1:4321';

/** The wiki's page of a record, by its content file's name (its slug). */
export const recordPath = (kind: KindId, slug: string) => `/${kind}/${slug}/`;
/** The wiki's page of the data releases, and of one release. */
export const CHANGES_PATH = '/changes/';
export const releasePath = (id: string) => `${CHANGES_PATH}${id}/`;
/** The wiki's planner. */
export const PLANNER_PATH = '/planner/';

/** The folder of dist/ that holds the API; reachable only through the edge. */
export const API_DIR = 'api';
/** The build's summary for people and the Node server (version, counts, releases); no runtime answers from it. */
export const MANIFEST_FILE = 'manifest.json';

// Routes: the keys of the routing index. Search keys hold letters and digits only, so no key
// holds a "/" of its own.
export const listRoute = (kind: KindId) => `${kind}/list`;
export const notFoundRoute = (kind: KindId) => `${kind}/not-found`;
export const levelRoute = (kind: KindId, level: number) => `${kind}/level/${level}`;
export const nameRoute = (kind: KindId, key: string) => `${kind}/name/${key}`;
// The suggestion index of a kind (see src/contract/suggest.ts): one answer per first-25 list,
// level prefix and key prefix, an empty answer, and the near-miss shards (read by the edge and
// the offline client to make an answer, never sent as they are).
export const suggestFirstRoute = (kind: KindId) => `${kind}/suggest/first`;
export const suggestEmptyRoute = (kind: KindId) => `${kind}/suggest/none`;
export const suggestLevelRoute = (kind: KindId, digits: string) => `${kind}/suggest/level/${digits}`;
export const suggestKeyRoute = (kind: KindId, key: string) => `${kind}/suggest/key/${key}`;
export const SUGGEST_SHARD = 'suggest/near/';
export const suggestShardRoute = (kind: KindId, prefix: string) => `${kind}/${SUGGEST_SHARD}${prefix}`;
/**
 * The wiki page of each current record of a kind (PagesBody: its level, name and slug), which
 * the Discord app links its answers to: read by the edge, never sent.
 */
export const pagesRoute = (kind: KindId) => `${kind}/pages`;
/** The fixed error bodies of the edge (401, unknown endpoint, ...), in the current data's index. */
export const fixedRoute = (name: FixedBodyName) => `_edge/${name}`;
/** The body of GET /api/releases, in the current data's index. */
export const RELEASES_ROUTE = 'releases';

/** The route that answers a query, if that query can have an answer at all. */
export function queryRoute(kind: KindId, query: SearchQuery): string | undefined {
  switch (query.type) {
    case 'all':
      return listRoute(kind);
    case 'level':
      return levelRoute(kind, query.level);
    case 'name':
      return nameRoute(kind, query.key);
    case 'none':
      return undefined;
  }
}

/** The routing index: one folder per scope (the current data, each release). */
export const INDEX_DIR = `${API_DIR}/index`;
/** The folder of the releases' scopes, one folder each. */
export const RELEASES_INDEX_DIR = `${INDEX_DIR}/releases`;
/** The folder of a scope's index: `api/index/current`, or `api/index/releases/<id>` for a release. */
export const scopeDir = (release: string | undefined) =>
  release === undefined ? `${INDEX_DIR}/current` : `${RELEASES_INDEX_DIR}/${release}`;
/** A scope's root: its data version and how many shards its routes are spread over (IndexRoot). */
export const rootPath = (release: string | undefined) => `${scopeDir(release)}/root.json`;
/** Shard `n` of a scope's routes: route -> body (IndexShard). */
export const shardPath = (release: string | undefined, n: number) => `${scopeDir(release)}/${n}.json`;

/** The bodies, each once, named by SHA-256. */
export const BODIES_DIR = `${API_DIR}/bodies`;
/** A body as dist/ stores it: a container of its identity, br and gzip bytes (src/contract/container.ts). */
export const storedBodyPath = (sha256: string) => `${BODIES_DIR}/${sha256}`;
