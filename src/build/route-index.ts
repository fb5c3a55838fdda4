// Writes one scope's routing index (src/contract/route-index.ts): its routes spread over as
// few shards as keep every shard within MAX_SHARD_BYTES, and the root naming the count. Used
// for dist/ (bodies named by their stored container) and for the offline bundles (bodies named
// by their JSON), so both hold the same routes and are read by the same resolver.
import { rootPath, shardPath } from '../contract/paths.ts';
import { type IndexRoot, MAX_SHARD_BYTES, NEAR_GROUP_LENGTH, shardOf } from '../contract/route-index.ts';

export interface IndexFile {
  /** Path below dist/ (or inside a bundle). */
  path: string;
  text: string;
}

/** The bytes a route adds to its shard's JSON: its key, its body's name, quotes, colon and comma. */
const entryBytes = (route: string, body: string) => JSON.stringify(route).length + body.length + 4;

/**
 * How a scope's routes are spread: the fewest shards that keep each within MAX_SHARD_BYTES,
 * near-miss shards grouped by their first NEAR_GROUP_LENGTH characters, or more where a group
 * would not fit in one shard.
 */
function spread(routes: ReadonlyMap<string, string>): Omit<IndexRoot, 'version'> {
  let total = 2;
  for (const [route, body] of routes) total += entryBytes(route, body);
  for (let nearGroup = NEAR_GROUP_LENGTH; ; nearGroup++) {
    // Start where the average shard is half the limit; add shards until the largest fits.
    let shards = Math.max(1, Math.ceil((2 * total) / MAX_SHARD_BYTES));
    while (shards <= 2 * routes.size) {
      const sizes = new Array<number>(shards).fill(2);
      for (const [route, body] of routes) {
        const n = shardOf(route, { shards, nearGroup });
        sizes[n] = (sizes[n] ?? 0) + entryBytes(route, body);
      }
      if (Math.max(...sizes) <= MAX_SHARD_BYTES) return { shards, nearGroup };
      shards = Math.ceil(shards * 1.25);
    }
    // Only a group of near-miss shards larger than a shard gets here: group them finer.
  }
}

/** The files of one scope's index: root.json, then 0.json, 1.json, ... */
export function indexFiles(
  release: string | undefined,
  version: string,
  routes: ReadonlyMap<string, string>,
): IndexFile[] {
  const { shards: count, nearGroup } = spread(routes);
  const shards = Array.from({ length: count }, () => ({}) as Record<string, string>);
  for (const [route, body] of routes) {
    const shard = shards[shardOf(route, { shards: count, nearGroup })];
    if (shard) shard[route] = body;
  }
  const root: IndexRoot = { version, shards: count, nearGroup };
  return [
    { path: rootPath(release), text: JSON.stringify(root) },
    ...shards.map((shard, n) => ({ path: shardPath(release, n), text: JSON.stringify(shard) })),
  ];
}
