// Writes one scope's routing index (src/contract/route-index.ts): its routes spread over as
// few shards as keep every shard within MAX_SHARD_BYTES, and the root naming the count. Used
// for dist/ (bodies named by their stored container) and for the offline bundles (bodies named
// by their JSON), so both hold the same routes and are read by the same resolver.
import { rootPath, shardPath } from '../contract/paths.ts';
import { type IndexRoot, MAX_SHARD_BYTES, NEAR_GROUP_LENGTH, shardGroup, shardOf } from '../contract/route-index.ts';

export interface IndexFile {
  /** Path below dist/ (or inside a bundle). */
  path: string;
  text: string;
}

/** The bytes a route adds to its shard's JSON: its key, its body's name, quotes, colon and comma. */
const entryBytes = (route: string, body: string) => JSON.stringify(route).length + body.length + 4;

/** The largest of the sizes of routes grouped by `group`. */
function largestGroup(routes: ReadonlyMap<string, string>, group: (route: string) => string | number): number {
  const sizes = new Map<string | number, number>();
  let largest = 0;
  for (const [route, body] of routes) {
    const key = group(route);
    const size = (sizes.get(key) ?? 2) + entryBytes(route, body);
    sizes.set(key, size);
    if (size > largest) largest = size;
  }
  return largest;
}

/**
 * How a scope's routes are spread: near-miss shards grouped by their first NEAR_GROUP_LENGTH
 * characters, or more where such a group would not fit in one shard; then the fewest shards
 * that keep each within `maxShardBytes`.
 */
function spread(routes: ReadonlyMap<string, string>, maxShardBytes: number): Omit<IndexRoot, 'version'> {
  let nearGroup = NEAR_GROUP_LENGTH;
  // With one shard per group, the largest group is the smallest largest shard there can be.
  while (largestGroup(routes, (route) => shardGroup(route, nearGroup)) > maxShardBytes) nearGroup++;
  let total = 2;
  for (const [route, body] of routes) total += entryBytes(route, body);
  // Start where the average shard is half the limit; add shards until the largest fits.
  let shards = Math.max(1, Math.ceil((2 * total) / maxShardBytes));
  while (largestGroup(routes, (route) => shardOf(route, { shards, nearGroup })) > maxShardBytes)
    shards = Math.ceil(shards * 1.25);
  return { shards, nearGroup };
}

export interface IndexOptions {
  /** MAX_SHARD_BYTES but in tests, which spread a few records over many shards. */
  maxShardBytes?: number;
}

/** The files of one scope's index: root.json, then 0.json, 1.json, ... */
export function indexFiles(
  release: string | undefined,
  version: string,
  routes: ReadonlyMap<string, string>,
  { maxShardBytes = MAX_SHARD_BYTES }: IndexOptions = {},
): IndexFile[] {
  const { shards: count, nearGroup } = spread(routes, maxShardBytes);
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
