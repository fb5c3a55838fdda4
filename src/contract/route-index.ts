// The routing index of one scope (the current data, or one release): a root naming its data
// version and its shard count, and the routes spread over that many shards by a hash of the
// route, each shard a JSON object route -> body (the SHA-256 naming the stored body). Answering
// a request reads the root and one shard (a near-miss suggestion: the few shards of its
// variants), so what a reader parses is bounded by MAX_SHARD_BYTES, whatever the number of
// records or releases. Written by the build, read by the edge and the offline client.
import { SHARD_ROOT_LENGTH } from './suggest.ts';
import { SUGGEST_SHARD } from './paths.ts';

/** A scope's root.json. */
export interface IndexRoot {
  /** The data version: X-Data-Version of the scope's answers. */
  version: string;
  /** How many shards the routes are spread over. */
  shards: number;
  /**
   * Near-miss shards are placed in the index by this many first characters of their prefix
   * (3, or more where a group of them would not fit in one shard), so a query variant's
   * near-miss shards are listed in the index shards of its prefixes of 2 to nearGroup characters.
   */
  nearGroup: number;
}

/** One shard: route -> SHA-256 of its body. */
export type IndexShard = Readonly<Record<string, string>>;

/**
 * The build spreads routes over enough shards that none is larger than this. A cold reader
 * parses at most one root and one shard before it answers (a near-miss suggestion a few more).
 */
export const MAX_SHARD_BYTES = 32 * 1024;

/** The fewest first characters by which near-miss shards are grouped in the index (IndexRoot.nearGroup). */
export const NEAR_GROUP_LENGTH = SHARD_ROOT_LENGTH + 1;

/**
 * What decides a route's shard: the route itself, except for near-miss shards, which go by
 * their first `nearGroup` characters, so the near-miss shards a query variant could fall in
 * are listed in a few known index shards.
 */
export function shardGroup(route: string, nearGroup: number): string {
  const at = route.indexOf(SUGGEST_SHARD);
  return at < 0 ? route : route.slice(0, at + SUGGEST_SHARD.length + nearGroup);
}

/** FNV-1a (32 bits) over the UTF-16 code units: cheap, and the same in every runtime. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The shard of a scope (by its root) that holds `route`. */
export const shardOf = (route: string, { shards, nearGroup }: Omit<IndexRoot, 'version'>): number =>
  fnv1a(shardGroup(route, nearGroup)) % shards;

/** The route's body in a shard, if the shard lists it. */
export const routeIn = (shard: IndexShard, route: string): string | undefined =>
  Object.hasOwn(shard, route) ? shard[route] : undefined;

/** A root as JSON parsing gives it, checked enough that a reader never indexes with nonsense. */
export function checkRoot(value: unknown, name: string): IndexRoot {
  const root = (typeof value === 'object' && value !== null ? value : {}) as Partial<IndexRoot>;
  const count = (value: unknown, least: number) => Number.isSafeInteger(value) && (value as number) >= least;
  if (typeof root.version !== 'string' || !count(root.shards, 1) || !count(root.nearGroup, NEAR_GROUP_LENGTH))
    throw new Error(`${name} is not the root of a routing index.`);
  return { version: root.version, shards: root.shards ?? 1, nearGroup: root.nearGroup ?? NEAR_GROUP_LENGTH };
}
