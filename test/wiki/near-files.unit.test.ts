// The wiki's near-miss files (src/contract/near-files.ts): a root whose file would pass the budget
// is split by longer prefixes, and the search page's "Did you mean" (src/wiki/search-suggest.ts)
// reading the split files answers as it does from one file per first character.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { nearShardTexts, type SuggestEntry } from '../../src/build/suggest-index.ts';
import { searchKey } from '../../src/contract/search-key.ts';
import { cutterContentSchema } from '../../src/schema/records.ts';
import { NEAR_FILE_BUDGET_BYTES, NEAR_MANIFEST_PATH, nearFiles, nearRootPath } from '../../src/contract/near-files.ts';
import { didYouMean } from '../../src/wiki/search-suggest.ts';

const entryOf = (name: string, level: number): SuggestEntry => ({
  data: cutterContentSchema.parse({ level, name, cooldown: 1, cost: 1, efficiency: [1, 2] }),
  keys: [searchKey(name)],
});

/** Names over a small alphabet, so many share their first characters. */
const NAMES = Array.from({ length: 120 }, (_, index) => `sa${(index * 7919).toString(36)} ${index.toString(36)}ks`);
const ENTRIES = NAMES.map((name, index) => entryOf(name, index + 1));
/** API shards this small split often, so the files reach roots of three characters and more. */
const SMALL_SHARDS = { shardSplitBytes: 300 };
const bytesOf = (text: string) => new TextEncoder().encode(text).length;
const shardsIn = (text: string) => Object.keys(JSON.parse(text) as object);

/** Reads a kind's files as the search page does, from memory. */
function reader(files: ReadonlyMap<string, string>) {
  const published = new Map<string, unknown>([[NEAR_MANIFEST_PATH, { cutters: [...files.keys()] }]]);
  for (const [root, text] of files) published.set(nearRootPath('cutters', root), JSON.parse(text));
  return async (path: string) => {
    if (!published.has(path)) throw new Error(`${path} is not a published file`);
    return published.get(path);
  };
}

describe('near-miss files', () => {
  test('a root over the budget is split into longer roots, each file within the budget', () => {
    const budget = 4096;
    const shards = nearShardTexts(ENTRIES, SMALL_SHARDS);
    const unsplit = nearFiles(shards, Number.POSITIVE_INFINITY);
    expect(bytesOf(unsplit.get('s') ?? '')).toBeGreaterThan(budget);
    const files = nearFiles(shards, budget);
    expect([...files.keys()].some((root) => root.length > 2)).toBe(true);
    for (const [root, text] of files) expect(bytesOf(text), root).toBeLessThanOrEqual(budget);
  });

  test('every shard is in one file: the one of the longest root that starts its prefix', () => {
    const shards = nearShardTexts(ENTRIES, SMALL_SHARDS);
    const files = nearFiles(shards, 2048);
    const placed = [...files].flatMap(([root, text]) => shardsIn(text).map((prefix) => [prefix, root] as const));
    expect(placed.map(([prefix]) => prefix).sort()).toEqual([...shards.keys()].sort());
    for (const [prefix, root] of placed) {
      const longest = [...files.keys()].filter((other) => prefix.startsWith(other)).sort((a, b) => b.length - a.length);
      expect(longest[0], prefix).toBe(root);
    }
  });

  test('a single shard larger than the budget is written whole, alone in its file', () => {
    const large = `{"entries":{},"variants":{"abc":{"abcd":[${Array.from({ length: 200 }, (_, n) => n)}]}}}`;
    const small = '{"entries":{},"variants":{}}';
    const files = nearFiles(
      new Map([
        ['ab', large],
        ['ac', small],
      ]),
      256,
    );
    expect([...files.keys()]).toEqual(['ab', 'ac']);
    expect(bytesOf(files.get('ab') ?? '')).toBeGreaterThan(256);
    expect(JSON.parse(files.get('ab') ?? '')).toEqual({ ab: JSON.parse(large) });
  });

  test('content within the budget keeps one file per first character', () => {
    const files = nearFiles(nearShardTexts(ENTRIES.slice(0, 3)), NEAR_FILE_BUDGET_BYTES);
    expect([...files.keys()].every((root) => root.length === 1)).toBe(true);
  });
});

/** A key with up to `edits` random edits over the names' letters. */
const edited = (key: string, edits: number) =>
  fc
    .array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom(...'sakb1')), {
      maxLength: edits,
    })
    .map((steps) =>
      steps.reduce((text, [at, how, letter]) => {
        const index = text.length === 0 ? 0 : at % text.length;
        const rest = text.slice(index + (how === 'insert' ? 0 : 1));
        return text.slice(0, index) + (how === 'delete' ? '' : letter) + rest;
      }, key),
    );

const word = fc.stringMatching(/^[sakb1]{3,9}$/);
const names = fc.uniqueArray(
  fc.array(word, { minLength: 1, maxLength: 2 }).map((words) => words.join(' ')),
  {
    minLength: 1,
    maxLength: 50,
    selector: searchKey,
  },
);
/** Content, a budget small enough to split its files, and queries: its names edited, or any text. */
const contentAndQueries = names.chain((all) =>
  fc.tuple(
    fc.constant(all),
    fc.integer({ min: 64, max: 4096 }),
    fc.array(
      fc.oneof(
        fc.constantFrom(...all).chain((name) => edited(searchKey(name), 2)),
        fc.string(),
      ),
      {
        minLength: 1,
        maxLength: 10,
      },
    ),
  ),
);

describe('"Did you mean" over split files', () => {
  test("a query's suggestions are the same as with one file per first character", async () => {
    await fc.assert(
      fc.asyncProperty(contentAndQueries, async ([all, budget, queries]) => {
        const shards = nearShardTexts(
          all.map((name, index) => entryOf(name, index + 1)),
          SMALL_SHARDS,
        );
        const split = reader(nearFiles(shards, budget));
        const whole = reader(nearFiles(shards, Number.POSITIVE_INFINITY));
        for (const query of queries)
          expect(await didYouMean(query, split), query).toEqual(await didYouMean(query, whole));
      }),
      { numRuns: 150 },
    );
  });
});
