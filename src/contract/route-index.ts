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
}

/** One shard: route -> SHA-256 of its body. */
export type IndexShard = Readonly<Record<string, string>>;

/**
 * The build spreads routes over enough shards that none is larger than this. A cold reader
 * parses at most one root and one shard before it answers (a near-miss suggestion a few more).
 */
export const MAX_SHARD_BYTES = 32 * 1024;

/** Near-miss shards are grouped in the index by this many first characters of their prefix. */
export const NEAR_GROUP_LENGTH = SHARD_ROOT_LENGTH + 1;

/**
 * What decides a route's shard: the route itself, except for near-miss shards, which go by
 * their first NEAR_GROUP_LENGTH characters, so all the near-miss shards a query variant could
 * fall in are listed in two index shards (that of its first 2 and of its first 3 characters).
 */
function shardGroup(route: string): string {
  const at = route.indexOf(SUGGEST_SHARD);
  return at < 0 ? route : route.slice(0, at + SUGGEST_SHARD.length + NEAR_GROUP_LENGTH);
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

/** The shard of a scope with `shards` shards that holds `route`. */
export const shardOf = (route: string, shards: number): number => fnv1a(shardGroup(route)) % shards;

/** The route's body in a shard, if the shard lists it. */
export const routeIn = (shard: IndexShard, route: string): string | undefined =>
  Object.hasOwn(shard, route) ? shard[route] : undefined;

/** A root as JSON parsing gives it, checked enough that a reader never indexes with nonsense. */
export function checkRoot(value: unknown, name: string): IndexRoot {
  const root = (typeof value === 'object' && value !== null ? value : {}) as Partial<IndexRoot>;
  if (typeof root.version !== 'string' || !Number.isSafeInteger(root.shards) || (root.shards ?? 0) < 1)
    throw new Error(`${name} is not the root of a routing index.`);
  return { version: root.version, shards: root.shards ?? 1 };
}
