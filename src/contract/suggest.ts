// The suggestion rules of the API contract ("Suggestions (autocomplete)"), written once:
// the build precomputes every answer it can from them, and the edge core and the offline
// client resolve a query with the same plan and the same near-miss merge.
//
// Exact forms (the first 25, a level prefix, a key that starts a name, word or alias key)
// are finite, so each has its own prebuilt answer (src/contract/resolve.ts picks it). Near
// misses (group e) use a deletion index in the manner of SymSpell: every word and name key
// is stored under each of its variants with up to 1 (keys under 6 characters) or 2
// characters deleted; a query's own
// variants find every key within its edit budget, and each candidate is then checked with
// the true distance. Variants are sharded by prefix, a shard split by the next character
// when it grows large, so a query reads the few small shards its own variants fall in.
import { searchKey } from './search-key.ts';
import { MAX_SEARCH_LENGTH } from './search-query.ts';

/** A chat client shows at most 25 choices. */
export const SUGGESTION_LIMIT = 25;
/** Keys shorter than this get no near misses. */
export const NEAR_MIN_LENGTH = 4;
/** Keys this long may be 2 edits away; shorter ones 1. */
export const TWO_EDITS_MIN_LENGTH = 8;
/** The shortest key a near miss can reach: 4 characters less one edit. */
const INDEXED_MIN_LENGTH = NEAR_MIN_LENGTH - 1;
/** Near-miss shards are named by a variant prefix of at least this many characters. */
export const SHARD_ROOT_LENGTH = 2;

/** One entry of a suggestion list: the record's current name and its level (plots: level only). */
export type Suggestion = { name: string; level: number } | { level: number };

export function suggestionOf(record: { level: number; name?: string }): Suggestion {
  return record.name === undefined ? { level: record.level } : { name: record.name, level: record.level };
}

/**
 * Records (or suggestions) as a person reads them, the first `most` named: "Giant Sequoia
 * (level 97), Oak Tree (level 2) and 3 more". What the CLI and the MCP tools say of a miss.
 */
export function recordsInWords(records: readonly { name?: string; level: number }[], most = 10): string {
  const label = (record: { name?: string; level: number }) =>
    record.name === undefined ? `level ${record.level}` : `${record.name} (level ${record.level})`;
  const named = records.slice(0, most).map(label).join(', ');
  return records.length <= most ? named : `${named} and ${records.length - most} more`;
}

/**
 * The keys of a name's words. Words are split where the name has a character that is not a
 * letter or digit; a combining mark stays with its letter, so "Cafe\u0301" stays one word.
 */
export function wordKeys(name: string): string[] {
  const keys = name.split(/[^\p{L}\p{N}\p{M}]+/u).map(searchKey);
  return [...new Set(keys.filter((key) => key !== ''))];
}

/** How many edits a near miss of `key` may be away: 0 (no near misses), 1 or 2. */
export function editBudget(key: string): number {
  if (key.length >= TWO_EDITS_MIN_LENGTH) return 2;
  return key.length >= NEAR_MIN_LENGTH ? 1 : 0;
}

/** How many deletions the index stores for a key: enough for every query that could reach it. */
function indexedDepth(key: string): number {
  // A query 2 edits away has 8 or more characters, so the key has at least 6.
  return key.length >= TWO_EDITS_MIN_LENGTH - 2 ? 2 : 1;
}

/** `key` and every string made from it by deleting up to `depth` characters, none shorter than 3. */
export function deletionVariants(key: string, depth: number): Set<string> {
  const variants = new Set<string>([key]);
  let layer = [key];
  for (let round = 0; round < depth; round++) {
    const next: string[] = [];
    for (const text of layer) {
      if (text.length <= INDEXED_MIN_LENGTH) continue;
      for (let index = 0; index < text.length; index++) {
        const shorter = text.slice(0, index) + text.slice(index + 1);
        if (!variants.has(shorter)) {
          variants.add(shorter);
          next.push(shorter);
        }
      }
    }
    layer = next;
  }
  return variants;
}

/** The longest query key whose variants are looked up (queryVariants): a 100-character value, 2 edits more. */
const LONGEST_QUERY_KEY = MAX_SEARCH_LENGTH + 2;
/** The longest key a near miss can reach: 2 edits past the longest query key looked up. */
const LONGEST_INDEXED_KEY = LONGEST_QUERY_KEY + 2;

/**
 * The variants under which the index stores a word or name key; none for keys too short or too
 * long to be reached. A key of n characters has about n²/2 variants: one name of 300 characters,
 * stored under all of them, took a small project's API to 214 MB, for no query that could find it.
 */
export function indexedVariants(key: string): Set<string> {
  return key.length < INDEXED_MIN_LENGTH || key.length > LONGEST_INDEXED_KEY
    ? new Set()
    : deletionVariants(key, indexedDepth(key));
}

/**
 * The edit distance of two texts, where an edit inserts, deletes or replaces one character or
 * swaps two neighbours (optimal string alignment); any distance above `max` is given as max + 1.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  // The row before the previous one: read for swaps, which start on the second row (in the
  // first row or column, a[i - 2] or b[j - 2] is undefined, which equals no character).
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] ?? 0, max + 1);
}

/** A shard of the near-miss index, as the build writes it. */
export interface NearShard {
  /** The suggestion of each record the shard names, by its position in list order. */
  entries: Record<string, Suggestion>;
  /** Variant -> key it was made from -> positions of the records with that key (the first 25). */
  variants: Record<string, Record<string, number[]>>;
}

/**
 * The variants of a query key that the near-miss index is searched for; none when the key is
 * too short for near misses, or longer than any key a search can reach (the key of a value
 * over 100 characters could only be 2 edits from a key over 100 characters, which no search finds).
 */
export function queryVariants(key: string): Set<string> {
  const budget = editBudget(key);
  return budget === 0 || key.length > LONGEST_QUERY_KEY ? new Set() : deletionVariants(key, budget);
}

/**
 * Group e: the records with a word or name key within the edit budget of `key`, nearer first,
 * then list order, from the shards the plan named, by their prefix. Each of the query's
 * variants is looked up in the one shard holding it: the work grows with the query, not the index.
 */
export function nearSuggestions(
  { key, isShard }: Pick<NearPlan, 'key' | 'isShard'>,
  shards: ReadonlyMap<string, NearShard>,
): Suggestion[] {
  const budget = editBudget(key);
  const found = new Map<number, { distance: number; entry: Suggestion }>();
  const distances = new Map<string, number>();
  for (const variant of queryVariants(key)) {
    const prefix = shardHolding(variant, isShard);
    const shard = prefix === undefined ? undefined : shards.get(prefix);
    const byKey = shard && Object.hasOwn(shard.variants, variant) ? shard.variants[variant] : undefined;
    if (!shard || !byKey) continue;
    for (const [candidate, positions] of Object.entries(byKey)) {
      const distance = distances.get(candidate) ?? editDistance(key, candidate, budget);
      distances.set(candidate, distance);
      if (distance > budget) continue;
      for (const position of positions) {
        const known = found.get(position);
        const entry = shard.entries[position];
        if (entry && (!known || distance < known.distance)) found.set(position, { distance, entry });
      }
    }
  }
  return [...found]
    .sort(([positionA, a], [positionB, b]) => a.distance - b.distance || positionA - positionB)
    .slice(0, SUGGESTION_LIMIT)
    .map(([, { entry }]) => entry);
}

/** A near-miss shard from the text the build wrote. */
export function parseShard(text: string): NearShard {
  return JSON.parse(text) as NearShard;
}

/** A near-miss query: its key, and which variant prefixes name shards. */
export interface NearPlan {
  key: string;
  isShard(prefix: string): boolean;
}

/**
 * The shard a variant lives in: its longest prefix, of 2 characters or more, that names a
 * shard. The build splits a large shard by the next character and keeps a shard for every
 * prefix on the way, so the prefixes that name shards are those up to the first that does not.
 */
export function shardHolding(variant: string, isShard: (prefix: string) => boolean): string | undefined {
  let holding: string | undefined;
  for (let length = SHARD_ROOT_LENGTH; length <= variant.length; length++) {
    const prefix = variant.slice(0, length);
    if (!isShard(prefix)) break;
    holding = prefix;
  }
  return holding;
}
