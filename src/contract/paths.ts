// Where each prebuilt envelope lives in dist/. The build writes these files and the edge
// resolves requests to them: one layout, defined once.
import type { KindId } from '../schema/kinds.ts';
import type { SearchQuery } from './search-query.ts';

/** The folder of dist/ that holds the API envelopes; reachable only through the edge. */
export const API_DIR = 'api';
export const MANIFEST_FILE = 'manifest.json';

export const listPath = (kind: KindId) => `${API_DIR}/${kind}/index.json`;
export const namePath = (kind: KindId, key: string) => `${API_DIR}/${kind}/name/${key}.json`;
export const levelPath = (kind: KindId, level: number) => `${API_DIR}/${kind}/level/${level}.json`;
export const notFoundPath = (kind: KindId) => `${API_DIR}/${kind}/not-found.json`;

// The suggestion index of a kind (see src/contract/suggest.ts): one answer per first-25 list,
// level prefix and key prefix, an empty answer, and the near-miss shards.
const suggestDir = (kind: KindId) => `${API_DIR}/${kind}/suggest`;
export const suggestFirstPath = (kind: KindId) => `${suggestDir(kind)}/index.json`;
export const suggestEmptyPath = (kind: KindId) => `${suggestDir(kind)}/none.json`;
export const suggestLevelPath = (kind: KindId, digits: string) => `${suggestDir(kind)}/level/${digits}.json`;
export const suggestKeyPath = (kind: KindId, key: string) => `${suggestDir(kind)}/key/${key}.json`;
export const suggestShardPath = (kind: KindId, shard: string) => `${suggestDir(kind)}/near/${shard}.json`;

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
