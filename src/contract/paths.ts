// Where each prebuilt envelope lives in dist/. The build writes these files and the edge
// resolves requests to them: one layout, defined once.
import type { KindId } from '../schema/kind-ids.ts';
import type { FixedBodyName } from './messages.ts';
import type { SearchQuery } from './search-query.ts';

/** Where `npm start` serves the wiki and the API; the CLI's default address. */
export const LOCAL_ORIGIN = 'http://127.0.0.1:4321';

/** The folder of dist/ that holds the API envelopes; reachable only through the edge. */
export const API_DIR = 'api';
export const MANIFEST_FILE = 'manifest.json';

export const listPath = (kind: KindId) => `${API_DIR}/${kind}/index.json`;
export const namePath = (kind: KindId, key: string) => `${API_DIR}/${kind}/name/${key}.json`;
export const levelPath = (kind: KindId, level: number) => `${API_DIR}/${kind}/level/${level}.json`;
export const notFoundPath = (kind: KindId) => `${API_DIR}/${kind}/not-found.json`;

// The suggestion index of a kind (see src/contract/suggest.ts): one answer per first-25 list,
// level prefix and key prefix, an empty answer, and the near-miss shards (read by the edge and
// the offline client, never served as they are).
const suggestDir = (kind: KindId) => `${API_DIR}/${kind}/suggest`;
export const suggestFirstPath = (kind: KindId) => `${suggestDir(kind)}/index.json`;
export const suggestEmptyPath = (kind: KindId) => `${suggestDir(kind)}/none.json`;
export const suggestLevelPath = (kind: KindId, digits: string) => `${suggestDir(kind)}/level/${digits}.json`;
export const suggestKeyPath = (kind: KindId, key: string) => `${suggestDir(kind)}/key/${key}.json`;
export const suggestShardPath = (kind: KindId, shard: string) => `${suggestDir(kind)}/near/${shard}.json`;
/** The fixed error bodies of the edge (401, unknown endpoint, ...): no kind's folder. */
export const fixedBodyPath = (name: FixedBodyName) => `${API_DIR}/_edge/${name}.json`;

/** The compressions the build writes beside every API file, and the file name suffix of each. */
export const COMPRESSIONS = { br: '.br', gzip: '.gz' } as const;
export type Compression = keyof typeof COMPRESSIONS;
/** Where the build writes the `compression` variant of the API file at `path`. */
export const compressedPath = (path: string, compression: Compression) => `${path}${COMPRESSIONS[compression]}`;

/** The folder of the releases: their list, and below it each release's own API. */
export const RELEASES_DIR = `${API_DIR}/releases`;
/** The body of GET /api/releases. */
export const RELEASES_LIST_PATH = `${RELEASES_DIR}/index.json`;

/**
 * Where a release keeps the answer that the current API keeps at `path`: the same layout
 * below api/releases/<id>/, so every kind of answer (lists, searches, suggestions) is pinned
 * alike. `api/trees/index.json` -> `api/releases/2026-12-01/trees/index.json`.
 */
export function pinnedPath(path: string, releaseId: string): string {
  if (!path.startsWith(`${API_DIR}/`)) throw new Error(`${path} is not a path of the API folder`);
  return `${RELEASES_DIR}/${releaseId}/${path.slice(API_DIR.length + 1)}`;
}

/** The file that answers a query, if that query can have an answer at all. */
export function queryPath(kind: KindId, query: SearchQuery): string | undefined {
  switch (query.type) {
    case 'all':
      return listPath(kind);
    case 'level':
      return levelPath(kind, query.level);
    case 'name':
      return namePath(kind, query.key);
    case 'none':
      return undefined;
  }
}
