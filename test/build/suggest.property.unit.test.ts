// Properties of the suggestion index: for random content (names and aliases over a small
// alphabet, so prefixes, words and near misses collide) and random queries, the prebuilt
// files answered through the shared plan and merge (as the edge and the offline client
// answer) equal the brute-force reference over all records, and the lists keep the
// contract's promises.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ContentEntry } from '../../src/build/content.ts';
import { bundleApiFiles } from '../../src/build/bundles.ts';
import { indexFiles } from '../../src/build/route-index.ts';
import { suggestRoutes } from '../../src/build/suggest-index.ts';
import { answerText } from '../../src/client/bundle.ts';
import { rootPath, shardPath } from '../../src/contract/paths.ts';
import { resolve, type RouteIndex } from '../../src/contract/resolve.ts';
import { checkRoot, type IndexShard } from '../../src/contract/route-index.ts';
import { searchKey } from '../../src/contract/search-key.ts';
import type { Suggestion } from '../../src/contract/suggest.ts';
import { kindById } from '../../src/schema/kinds.ts';
import { cutterContentSchema } from '../../src/schema/records.ts';
import { referenceSuggestions } from '../support/suggest-reference.ts';

const cutters = kindById('cutters');
if (!cutters) throw new Error('no cutters kind');
const RUNS = { numRuns: 150 };

const word = fc.oneof(fc.stringMatching(/^[abcoks]{1,9}$/), fc.stringMatching(/^[ab]{6,10}$/));
const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
const record = fc.record({ name, aliases: fc.array(name, { maxLength: 2 }) });

/** Content entries in list order, with the content rule that names and aliases have distinct keys. */
const entriesArbitrary = fc
  .array(record, { minLength: 1, maxLength: 60 })
  .map((records) => {
    const taken = new Set<string>();
    const entries: ContentEntry[] = [];
    for (const { name, aliases } of records) {
      const keys = [name, ...aliases].map(searchKey);
      if (keys.some((key) => taken.has(key)) || new Set(keys).size !== keys.length) continue;
      for (const key of keys) taken.add(key);
      const level = entries.length + 1;
      const data = cutterContentSchema.parse({ level, name, cooldown: 1, cost: 1, efficiency: [1, 2], aliases });
      const { aliases: _aliases, ...apiRecord } = data;
      entries.push({ slug: `c${level}`, file: `content/cutters/c${level}.yaml`, data, record: apiRecord, keys });
    }
    return entries;
    // Content of at least one record: the queries are drawn from its names (a record whose own
    // name and alias share a key is left out, and could have been the only one).
  })
  .filter((entries) => entries.length > 0);

/** Shards this small split often, so the split shards are checked too. */
const SMALL_SHARDS = { shardSplitBytes: 300 };

const VERSION = '0000000000000000';
type Answerer = (search: string | null) => Promise<Suggestion[]>;
const dataOf = (text: string | undefined) => (JSON.parse(text ?? '{}') as { data: Suggestion[] }).data;

/** Answers a query from the kind's prebuilt routes laid out as a bundle, as the offline client does. */
function answerer(entries: readonly ContentEntry[]): Answerer {
  const scope = { release: undefined, version: VERSION, routes: suggestRoutes(cutters!, entries, SMALL_SHARDS) };
  const files = new Map(bundleApiFiles([scope]).map(({ name, bytes }) => [name, bytes]));
  return async (search) =>
    dataOf((await answerText(files, { endpoint: 'cutters', suggest: true, search, release: null }))?.text);
}

/** Index shards this small spread even a few records over many, as a large build's are. */
const SMALL_INDEX = { maxShardBytes: 300 };

/**
 * Answers a query as the edge does over dist/: the same routes in a routing index of many
 * shards, each read only when the resolver asks for it.
 */
function shardedAnswerer(entries: readonly ContentEntry[]): Answerer {
  const texts: string[] = [];
  const routes = new Map<string, string>();
  for (const { route, body } of suggestRoutes(cutters!, entries, SMALL_SHARDS))
    routes.set(route, String(texts.push(body) - 1));
  const files = new Map(indexFiles(undefined, VERSION, routes, SMALL_INDEX).map(({ path, text }) => [path, text]));
  const index: RouteIndex = {
    root: (release) =>
      release === undefined ? checkRoot(JSON.parse(files.get(rootPath(undefined)) ?? ''), 'root') : undefined,
    shard: (release, n) => JSON.parse(files.get(shardPath(release, n)) ?? '{}') as IndexShard,
    text: (body) => texts[Number(body)] ?? '',
  };
  return async (search) => {
    const resolved = await resolve(index, { endpoint: 'cutters', suggest: true, search, release: null });
    if (resolved.type === 'unknown-release') throw new Error('no release was asked for');
    return dataOf(resolved.type === 'made' ? resolved.text : texts[Number(resolved.body)]);
  };
}

/** A key with up to `edits` random edits: insert, delete, replace or swap neighbours. */
const edited = (text: string, edits: number) =>
  fc
    .array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace', 'swap'), fc.constantFrom(...'abcoks')), {
      maxLength: edits,
    })
    .map((steps) =>
      steps.reduce((current, [at, how, letter]) => {
        const index = current.length === 0 ? 0 : at % current.length;
        if (how === 'insert') return current.slice(0, index) + letter + current.slice(index);
        if (how === 'delete') return current.slice(0, index) + current.slice(index + 1);
        if (how === 'replace') return current.slice(0, index) + letter + current.slice(index + 1);
        return current.slice(0, index) + (current[index + 1] ?? '') + (current[index] ?? '') + current.slice(index + 2);
      }, text),
    );

/** Content and queries about it: its names and aliases edited, typed, or cut short. */
const contentAndQueries = entriesArbitrary.chain((entries) => {
  const names = entries.flatMap((entry) => [
    ...('name' in entry.data ? [entry.data.name] : []),
    ...('aliases' in entry.data ? (entry.data.aliases ?? []) : []),
  ]);
  // An "x" is in no name: such a query starts no key, so only near misses can answer it.
  const nearMiss = fc
    .tuple(fc.constantFrom(...names), fc.nat())
    .chain(([text, at]) =>
      edited(searchKey(text), 1).map(
        (key) => `${key.slice(0, at % (key.length + 1))}x${key.slice(at % (key.length + 1))}`,
      ),
    );
  const query = fc.oneof(
    nearMiss,
    fc.constantFrom(...names).chain((text) => edited(searchKey(text), 2)),
    fc.constantFrom(...names).chain((text) => fc.nat({ max: 12 }).map((cut) => text.slice(0, cut))),
    fc.stringMatching(/^[abcoksx ]{0,12}$/),
    fc.stringMatching(/^[0-9]{1,3}$/),
  );
  return fc.tuple(fc.constant(entries), fc.array(query, { minLength: 1, maxLength: 20 }));
});

const identity = (entry: Suggestion) => JSON.stringify(entry);

describe('suggestions over random content', () => {
  test.each([
    ['a bundle, as the offline client reads it', answerer],
    ['a routing index of many shards, as the edge reads dist/', shardedAnswerer],
  ])('every answer equals the brute-force reference (edit distances included), from %s', async (_, answerFrom) => {
    await fc.assert(
      fc.asyncProperty(contentAndQueries, async ([entries, queries]) => {
        const answer = answerFrom(entries);
        for (const search of queries)
          expect({ search, list: await answer(search) }).toEqual({
            search,
            list: referenceSuggestions(entries, search),
          });
      }),
      RUNS,
    );
  });

  test('a list never exceeds 25 entries and never repeats a record', async () => {
    await fc.assert(
      fc.asyncProperty(contentAndQueries, async ([entries, queries]) => {
        const answer = answerer(entries);
        for (const search of [null, ...queries]) {
          const list = await answer(search);
          expect(list.length).toBeLessThanOrEqual(25);
          expect(new Set(list.map(identity)).size).toBe(list.length);
        }
      }),
      RUNS,
    );
  });

  test('a list always holds the exact match when there is one', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArbitrary, fc.nat(), fc.boolean(), async (entries, pick, byAlias) => {
        const entry = entries[pick % entries.length];
        if (!entry || !('name' in entry.data)) return;
        const alias = 'aliases' in entry.data ? entry.data.aliases?.[0] : undefined;
        const typed = byAlias && alias ? alias.toUpperCase() : entry.data.name;
        expect(await answerer(entries)(typed)).toContainEqual({ name: entry.data.name, level: entry.data.level });
      }),
      RUNS,
    );
  });

  test('every record is found from every prefix of its name key of 1 to 3 characters shared by < 25', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArbitrary, async (entries) => {
        const answer = answerer(entries);
        const nameKeys = entries.map((entry) => entry.keys[0] ?? '');
        for (const [position, entry] of entries.entries()) {
          const key = nameKeys[position] ?? '';
          for (const length of [1, 2, 3]) {
            const prefix = key.slice(0, length);
            if (prefix.length < length || nameKeys.filter((other) => other.startsWith(prefix)).length >= 25) continue;
            if (!('name' in entry.data)) continue;
            expect(await answer(prefix)).toContainEqual({ name: entry.data.name, level: entry.data.level });
          }
        }
      }),
      RUNS,
    );
  });
});
