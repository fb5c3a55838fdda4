// The suggestion index of one kind (the rules are src/contract/suggest.ts): the answer to
// every exact query form, prebuilt (the first 25, each level prefix, each prefix of a name,
// word or alias key), an empty answer, and the near-miss shards. A pure function of the
// kind's entries in list order, so a release can write its own index from its own snapshot.
import { suggestBody } from '../contract/messages.ts';
import {
  suggestEmptyRoute,
  suggestFirstRoute,
  suggestKeyRoute,
  suggestLevelRoute,
  suggestShardRoute,
} from '../contract/paths.ts';
import {
  indexedVariants,
  SHARD_ROOT_LENGTH,
  SUGGESTION_LIMIT,
  type Suggestion,
  suggestionOf,
  wordKeys,
} from '../contract/suggest.ts';
import type { Kind } from '../schema/kinds.ts';
import type { ApiRoute } from './api-route.ts';
import type { ContentEntry } from './content.ts';

/** Groups a to d of the contract, by position in list order. */
type Groups = [exact: number[], namePrefix: number[], wordPrefix: number[], aliasPrefix: number[]];

/**
 * How many records of one group can reach a 25-entry answer: each record of an earlier group
 * that shows again here is skipped, and at most 25 were listed before.
 */
const GROUP_CAP = 2 * SUGGESTION_LIMIT;

const prefixesOf = (key: string) => Array.from({ length: key.length }, (_, index) => key.slice(0, index + 1));

/** What the index is made of: each record's content (its level and name) and its search keys. */
export type SuggestEntry = Pick<ContentEntry, 'data' | 'keys'>;

/** The name of an entry's record, when its kind has names. */
function nameOf(entry: SuggestEntry): string | undefined {
  return 'name' in entry.data ? entry.data.name : undefined;
}

const suggestionsOf = (entries: readonly SuggestEntry[]) =>
  entries.map((entry) => suggestionOf({ level: entry.data.level, name: nameOf(entry) }));

export interface SuggestIndexOptions {
  /** A near-miss shard is split by the next character of its variants once it would pass this size. */
  shardSplitBytes?: number;
}

/** A kind's near-miss shards by prefix, as the text of each, from its entries in list order. */
export type NearShardsOf = (kind: Kind, entries: readonly SuggestEntry[]) => ReadonlyMap<string, string>;

/** Every route of a kind's suggestion index, in a fixed order. */
export function* suggestRoutes(
  kind: Kind,
  entries: readonly SuggestEntry[],
  options: SuggestIndexOptions = {},
  nearShardsOf: NearShardsOf = (_kind, of) => nearShardTexts(of, options),
): Generator<ApiRoute> {
  const suggestions = suggestionsOf(entries);
  const answer = (positions: Iterable<number>) =>
    suggestBody(
      kind.noun,
      [...positions].slice(0, SUGGESTION_LIMIT).flatMap((position) => suggestions[position] ?? []),
    );
  yield { route: suggestFirstRoute(kind.id), body: answer(entries.keys()) };
  yield { route: suggestEmptyRoute(kind.id), body: answer([]) };
  for (const [digits, positions] of levelPrefixes(entries)) {
    yield { route: suggestLevelRoute(kind.id, digits), body: answer(positions) };
  }
  for (const [prefix, groups] of keyPrefixes(entries)) {
    yield { route: suggestKeyRoute(kind.id, prefix), body: answer(new Set(groups.flat())) };
  }
  for (const [shard, text] of nearShardsOf(kind, entries)) {
    yield { route: suggestShardRoute(kind.id, shard), body: text, indexOnly: true };
  }
}

/**
 * A kind's near-miss shards alone, by prefix, as the text of each: the same shards as the API's
 * (suggestShardRoute), which the wiki's search page publishes for its "Did you mean".
 */
export function nearShardTexts(
  entries: readonly SuggestEntry[],
  { shardSplitBytes = SHARD_SPLIT_BYTES }: SuggestIndexOptions = {},
): Map<string, string> {
  return nearShards(entries, suggestionsOf(entries), shardSplitBytes);
}

/**
 * Near-miss shards made once per build: each kind's first shards (the current data's, which every
 * part of a build reads first) are kept and given again for records of the same levels and names,
 * so the offline bundles, the API and the wiki's near-miss files share one index. Making it is most
 * of the cost of a suggestion index: at 10,000 trees about 8 s of CPU and 300 MiB of heap each
 * time. Shards of other records (a release that renamed one) are made afresh and not kept.
 */
export function nearShardsKeepingFirst(options: SuggestIndexOptions = {}): NearShardsOf {
  const first = new Map<string, { inputs: string; shards: ReadonlyMap<string, string> }>();
  return (kind, entries) => {
    // All a shard is made of: each record's position, level, name and name key.
    const inputs = JSON.stringify(entries.map((entry) => [entry.data.level, nameOf(entry) ?? null, entry.keys[0]]));
    const kept = first.get(kind.id);
    if (kept) return kept.inputs === inputs ? kept.shards : nearShardTexts(entries, options);
    const shards = nearShardTexts(entries, options);
    first.set(kind.id, { inputs, shards });
    return shards;
  };
}

/** Makes a kind's suggestion routes from its entries in list order. */
export type SuggestRoutes = (kind: Kind, entries: readonly ContentEntry[]) => Iterable<ApiRoute>;

/**
 * suggestRoutes that keeps each kind's last routes and gives them again while the records'
 * levels, names and keys (all the index is made of) are the same: a release that changed
 * other figures has the same suggestion index as the scope before it, and making it is most
 * of the cost of a scope (about 11 s of CPU for 10,000 trees). `nearShardsOf`: the build's
 * near-miss shards, when another part of it has made them already.
 */
export function suggestRoutesKeepingLast(nearShardsOf?: NearShardsOf): SuggestRoutes {
  const last = new Map<string, { inputs: string; routes: ApiRoute[] }>();
  return (kind, entries) => {
    const inputs = JSON.stringify(entries.map((entry) => [entry.data.level, nameOf(entry) ?? null, entry.keys]));
    const kept = last.get(kind.id);
    if (kept?.inputs === inputs) return kept.routes;
    last.delete(kind.id); // before making the new ones, so two never live at once
    const routes = [...suggestRoutes(kind, entries, {}, nearShardsOf)];
    last.set(kind.id, { inputs, routes });
    return routes;
  };
}

/** Each prefix of a level written in decimal -> the records whose level starts with it. */
function levelPrefixes(entries: readonly SuggestEntry[]): Map<string, number[]> {
  const byPrefix = new Map<string, number[]>();
  entries.forEach((entry, position) => {
    for (const prefix of prefixesOf(String(entry.data.level))) {
      const positions = byPrefix.get(prefix) ?? [];
      if (positions.length < SUGGESTION_LIMIT) positions.push(position);
      byPrefix.set(prefix, positions);
    }
  });
  return byPrefix;
}

/** Each prefix of a name, word or alias key -> the records of groups a to d, each in list order. */
function keyPrefixes(entries: readonly SuggestEntry[]): Map<string, Groups> {
  const byPrefix = new Map<string, Groups>();
  const add = (prefix: string, group: 0 | 1 | 2 | 3, position: number) => {
    let groups = byPrefix.get(prefix);
    if (!groups) {
      groups = [[], [], [], []];
      byPrefix.set(prefix, groups);
    }
    const list = groups[group];
    // Entries come in list order, so a record added twice to a group is its last one.
    if (list.length < GROUP_CAP && list.at(-1) !== position) list.push(position);
  };
  entries.forEach((entry, position) => {
    const name = nameOf(entry);
    if (name === undefined) return;
    const [nameKey = '', ...aliasKeys] = entry.keys;
    for (const key of [nameKey, ...aliasKeys]) add(key, 0, position);
    for (const prefix of prefixesOf(nameKey)) add(prefix, 1, position);
    for (const word of wordKeys(name)) for (const prefix of prefixesOf(word)) add(prefix, 2, position);
    for (const alias of aliasKeys) for (const prefix of prefixesOf(alias)) add(prefix, 3, position);
  });
  return byPrefix;
}

/**
 * A near-miss shard is split once it would pass this size. Smaller shards mean less to read
 * and parse per query, larger ones fewer files (the Workers plans limit the file count); the
 * edge keeps parsed shards, so a query mostly reads none (bench:suggest).
 */
const SHARD_SPLIT_BYTES = 16 * 1024;

/**
 * The near-miss index: the keys each deletion variant was made from, and the records of each
 * key. A key's records are the same under every one of its variants, so they are kept once per
 * key: at 10,000 trees a map per variant took the whole suggestion index to 870 MiB of RSS,
 * 475 MiB this way.
 */
interface VariantIndex {
  /** Variant -> the keys it was made from, in the order they were first met. */
  keysOf: Map<string, string[]>;
  /** Key -> the positions of the records with that key. */
  positionsOf: Map<string, number[]>;
}

/** The near-miss index of every word and name key. */
function variantIndex(entries: readonly SuggestEntry[]): VariantIndex {
  const keysOf = new Map<string, string[]>();
  const positionsOf = new Map<string, number[]>();
  entries.forEach((entry, position) => {
    const name = nameOf(entry);
    if (name === undefined) return;
    for (const key of new Set([entry.keys[0] ?? '', ...wordKeys(name)])) {
      let positions = positionsOf.get(key);
      if (!positions) {
        positions = [];
        positionsOf.set(key, positions);
        for (const variant of indexedVariants(key)) {
          const keys = keysOf.get(variant);
          if (keys) keys.push(key);
          else keysOf.set(variant, [key]);
        }
      }
      // Records sharing a key share its distance to any query: only the first 25 can be listed.
      if (positions.length < SUGGESTION_LIMIT) positions.push(position);
    }
  });
  return { keysOf, positionsOf };
}

/**
 * The index in shards named by variant prefix, as the text of each: one per two-character
 * prefix, split by the next character while larger than `splitBytes`. A split shard keeps
 * the variants as long as its prefix (maybe none), so every prefix on the way to a shard names
 * one (see shardHolding).
 */
function nearShards(
  entries: readonly SuggestEntry[],
  suggestions: readonly Suggestion[],
  splitBytes: number,
): Map<string, string> {
  const index = variantIndex(entries);
  // Sorted, every prefix's variants are one run; sizeBefore[i] sums the rough sizes before i.
  const variants = [...index.keysOf.keys()].sort();
  const sizeBefore = [0];
  for (const variant of variants) {
    let size = variant.length + 6;
    for (const key of index.keysOf.get(variant) ?? [])
      size += key.length + 6 + (index.positionsOf.get(key)?.length ?? 0) * 40;
    sizeBefore.push((sizeBefore.at(-1) ?? 0) + size);
  }
  const shards = new Map<string, string>();
  const text = (from: number, to: number) => shardText(variants.slice(from, to), index, suggestions);
  /** The shards of variants[from, to), which all start with `prefix`. */
  const place = (prefix: string, from: number, to: number) => {
    const size = (sizeBefore[to] ?? 0) - (sizeBefore[from] ?? 0);
    // The sort puts the variant equal to the prefix, if any, first.
    const exact = variants[from] === prefix ? from + 1 : from;
    if (size <= splitBytes || exact === to) {
      shards.set(prefix, text(from, to));
      return;
    }
    shards.set(prefix, text(from, exact));
    forEachRun(exact, to, prefix.length + 1, place);
  };
  forEachRun(0, variants.length, SHARD_ROOT_LENGTH, place);
  return shards;

  /** Calls `visit` for each run of variants[from, to) that shares its first `length` characters. */
  function forEachRun(from: number, to: number, length: number, visit: typeof place) {
    let start = from;
    for (let at = from + 1; at <= to; at++) {
      const head = variants[start]?.slice(0, length) ?? '';
      if (at === to || !variants[at]?.startsWith(head)) {
        visit(head, start, at);
        start = at;
      }
    }
  }
}

/** A NearShard as JSON, written piece by piece: large indexes make many shards. */
function shardText(variants: readonly string[], index: VariantIndex, suggestions: readonly Suggestion[]): string {
  const positions = new Set<number>();
  const variantParts = variants.map((variant) => {
    const keyParts: string[] = [];
    for (const key of index.keysOf.get(variant) ?? []) {
      const keyPositions = index.positionsOf.get(key) ?? [];
      keyParts.push(`${JSON.stringify(key)}:[${keyPositions.join(',')}]`);
      for (const position of keyPositions) positions.add(position);
    }
    return `${JSON.stringify(variant)}:{${keyParts.join(',')}}`;
  });
  const entryParts = [...positions]
    .sort((a, b) => a - b)
    .map((position) => `"${position}":${JSON.stringify(suggestions[position])}`);
  return `{"entries":{${entryParts.join(',')}},"variants":{${variantParts.join(',')}}}`;
}
