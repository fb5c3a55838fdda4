// Where each prebuilt envelope lives in dist/. The build writes these files and the edge
// resolves requests to them: one layout, defined once.
import type { KindId } from '../schema/kinds.ts';
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
