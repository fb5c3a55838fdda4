// Writes one scope's routing index (src/contract/route-index.ts): its routes spread over as
// few shards as keep every shard within MAX_SHARD_BYTES, and the root naming the count. Used
// for dist/ (bodies named by their stored container) and for the offline bundles (bodies named
// by their JSON), so both hold the same routes and are read by the same resolver.
import { rootPath, shardPath } from '../contract/paths.ts';
import { type IndexRoot, MAX_SHARD_BYTES, shardOf } from '../contract/route-index.ts';

export interface IndexFile {
  /** Path below dist/ (or inside a bundle). */
  path: string;
  text: string;
}

/** The bytes a route adds to its shard's JSON: its key, its body's name, quotes, colon and comma. */
const entryBytes = (route: string, body: string) => JSON.stringify(route).length + body.length + 4;

/** The files of one scope's index: root.json, then 0.json, 1.json, ... */
export function indexFiles(
  release: string | undefined,
  version: string,
  routes: ReadonlyMap<string, string>,
): IndexFile[] {
  let total = 2;
  for (const [route, body] of routes) total += entryBytes(route, body);
  // Start where the average shard is half the limit; add shards until the largest fits.
  let count = Math.max(1, Math.ceil((2 * total) / MAX_SHARD_BYTES));
  for (;;) {
    const sizes = new Array<number>(count).fill(2);
    for (const [route, body] of routes) {
      const n = shardOf(route, count);
      sizes[n] = (sizes[n] ?? 0) + entryBytes(route, body);
    }
    if (Math.max(...sizes) <= MAX_SHARD_BYTES) break;
    // Only a group of routes that shares a shard (shardOf) larger than the limit could get here.
    if (count > routes.size)
      throw new Error(`The routes of ${rootPath(release)} cannot be sharded within ${MAX_SHARD_BYTES} bytes.`);
    count = Math.ceil(count * 1.25);
  }
  const shards = Array.from({ length: count }, () => ({}) as Record<string, string>);
  for (const [route, body] of routes) {
    const shard = shards[shardOf(route, count)];
    if (shard) shard[route] = body;
  }
  const root: IndexRoot = { version, shards: count };
  return [
    { path: rootPath(release), text: JSON.stringify(root) },
    ...shards.map((shard, n) => ({ path: shardPath(release, n), text: JSON.stringify(shard) })),
  ];
}
