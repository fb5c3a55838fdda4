// The suggestion rules of src/contract/suggest.ts, one by one, against expectations written out
// here (docs/api-contract.md, "Suggestions (autocomplete)"). test/build/suggest.property.unit.test.ts
// checks whole answers against a brute force; these pin each rule and its boundaries.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  deletionVariants,
  editBudget,
  editDistance,
  indexedVariants,
  type NearShard,
  nearSuggestions,
  queryVariants,
  recordsInWords,
  suggestionOf,
  wordKeys,
} from '../../src/contract/suggest.ts';
import { referenceDistance } from '../support/suggest-reference.ts';

describe('the words and entries of a suggestion', () => {
  test('a record with a name is shown by name and level; a plot by its level alone', () => {
    expect(suggestionOf({ name: 'Oak Tree', level: 5 })).toStrictEqual({ name: 'Oak Tree', level: 5 });
    expect(suggestionOf({ level: 3 })).toStrictEqual({ level: 3 });
  });

  test('records in words: each by name and level (a plot by level), the first `most` named, then how many more', () => {
    const oak = { name: 'Oak Tree', level: 2 };
    const plot = { level: 3 };
    expect(recordsInWords([])).toBe('');
    expect(recordsInWords([oak, plot])).toBe('Oak Tree (level 2), level 3');
    expect(recordsInWords([oak, plot], 2)).toBe('Oak Tree (level 2), level 3');
    expect(recordsInWords([oak, plot, { name: 'Giant Sequoia', level: 97 }], 2)).toBe(
      'Oak Tree (level 2), level 3 and 1 more',
    );
    const levels = Array.from({ length: 12 }, (_, index) => ({ level: index + 1 }));
    const firstTen = 'level 1, level 2, level 3, level 4, level 5, level 6, level 7, level 8, level 9, level 10';
    expect(recordsInWords(levels.slice(0, 10))).toBe(firstTen);
    expect(recordsInWords(levels.slice(0, 11))).toBe(`${firstTen} and 1 more`);
    expect(recordsInWords(levels)).toBe(`${firstTen} and 2 more`);
  });

  test('the words of a name are split at anything but letters, digits and marks, each key once, none empty', () => {
    expect(wordKeys('(Big) Oak -- Tree oak!')).toEqual(['big', 'oak', 'tree']);
    expect(wordKeys('Cafe\u0301 au lait')).toEqual(wordKeys('Café au lait'));
    expect(wordKeys('...')).toEqual([]);
  });
});

describe('the edit budget', () => {
  test('keys of 1 to 3 characters get no near misses, 4 to 7 one edit, 8 and more two', () => {
    const budgets = ['abc', 'abcd', 'abcdefg', 'abcdefgh'].map((key) => [key, editBudget(key)]);
    expect(budgets).toEqual([
      ['abc', 0],
      ['abcd', 1],
      ['abcdefg', 1],
      ['abcdefgh', 2],
    ]);
  });
});

describe('the deletion index', () => {
  test('the variants of a key: itself and every deletion up to the depth, none under 3 characters', () => {
    expect([...deletionVariants('abcd', 1)].sort()).toEqual(['abc', 'abcd', 'abd', 'acd', 'bcd']);
    expect([...deletionVariants('abcd', 2)].sort()).toEqual(['abc', 'abcd', 'abd', 'acd', 'bcd']);
    expect(deletionVariants('abcde', 2)).toEqual(
      new Set(['abcde', 'bcde', 'acde', 'abde', 'abce', 'abcd', 'cde', 'bde', 'bce', 'bcd', 'ade', 'ace', 'acd']).union(
        new Set(['abe', 'abd', 'abc']),
      ),
    );
  });

  test('keys under 3 characters are not indexed: no query can reach them', () => {
    expect(indexedVariants('ab')).toEqual(new Set());
    expect(indexedVariants('abc')).toEqual(new Set(['abc']));
  });

  test('a key is indexed under deletions of 1 character up to 5 characters, of 2 from 6', () => {
    expect(indexedVariants('abcde')).toEqual(new Set(['abcde', 'bcde', 'acde', 'abde', 'abce', 'abcd']));
    // abcdef itself, its 6 deletions of one character and its 15 (6 choose 2) of two.
    const sixes = [...indexedVariants('abcdef')].map((variant) => variant.length);
    expect([6, 5, 4].map((length) => sixes.filter((each) => each === length).length)).toEqual([1, 6, 15]);
    expect(sixes).toHaveLength(22);
  });

  test('a query under 4 characters has no variants to look up', () => {
    expect(queryVariants('abc')).toEqual(new Set());
    expect(queryVariants('abcd')).toEqual(deletionVariants('abcd', 1));
  });

  test('a query key of up to 102 characters is looked up; a longer one (a value that grew) is not', () => {
    // A value of 100 characters can make a longer key ("ß" -> "ss"), two edits from a 100-character key.
    expect(queryVariants('x'.repeat(100)).size).toBeGreaterThan(0);
    expect(queryVariants('x'.repeat(102)).size).toBeGreaterThan(0);
    expect(queryVariants('x'.repeat(103))).toEqual(new Set());
  });

  test('a key is indexed up to 104 characters, 2 edits past the longest query key looked up; no longer', () => {
    const key = (length: number) => Array.from({ length }, (_, at) => 'abcdefghij'[at % 10]).join('');
    expect(indexedVariants(key(104))).toEqual(deletionVariants(key(104), 2));
    expect(indexedVariants(key(105))).toEqual(new Set());
    // The longest query key looked up meets the longest key indexed at a shared variant.
    const query = key(102);
    const reached = [...queryVariants(query)].some((variant) => indexedVariants(key(104)).has(variant));
    expect(reached).toBe(true);
  });
});

describe('the edit distance', () => {
  test('insertions, deletions, replacements and swaps of neighbours count one edit each', () => {
    const cases: [a: string, b: string, distance: number][] = [
      ['oak', 'oak', 0],
      ['oak', 'oaks', 1],
      ['oaks', 'oak', 1],
      ['oak', 'oat', 1],
      ['sequioa', 'sequoia', 1],
      ['ab', 'xa', 2],
      ['a', 'xyz', 3],
      ['', 'abc', 3],
      ['abcdef', 'badcfe', 3],
      ['ca', 'abc', 3], // optimal string alignment: a swapped pair is not edited again
    ];
    for (const [a, b, distance] of cases) expect({ a, b, distance: editDistance(a, b, 5) }).toEqual({ a, b, distance });
  });

  test('a distance above the most asked for is given as that most plus one', () => {
    expect(editDistance('abcdef', 'ab', 1)).toBe(2);
    expect(editDistance('abcd', 'wxyz', 2)).toBe(3);
    expect(editDistance('abcd', 'abxy', 2)).toBe(2);
  });

  test('for any two short texts, the distance of the optimal string alignment, capped', () => {
    const text = fc.stringMatching(/^[abc]{0,7}$/);
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        expect(editDistance(a, b, max)).toBe(Math.min(referenceDistance(a, b), max + 1));
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('the near-miss merge', () => {
  // Two shards, by the first two characters of a variant. The query "abcdefgh" may be 2 edits away.
  const isShard = (prefix: string) => prefix.length === 2;
  const shard = (entries: NearShard['entries'], variants: NearShard['variants']): NearShard => ({ entries, variants });
  const merge = (shards: Record<string, NearShard>) =>
    nearSuggestions({ key: 'abcdefgh', isShard }, new Map(Object.entries(shards)));

  test('nearer first, then list order', () => {
    const entries = { 0: { name: 'Zero', level: 1 }, 3: { name: 'Three', level: 4 }, 5: { name: 'Five', level: 6 } };
    const shards = {
      ab: shard(entries, {
        abcdef: { abcdefyz: [3, 0] }, // 2 edits
        abcdefg: { abcdefgx: [5] }, // 1 edit
      }),
    };
    expect(merge(shards)).toEqual([
      { name: 'Five', level: 6 },
      { name: 'Zero', level: 1 },
      { name: 'Three', level: 4 },
    ]);
  });

  test('a record is placed by its nearest key, whether that key is found first or last', () => {
    const entries = { 0: { name: 'Other', level: 1 }, 1: { name: 'Both', level: 2 } };
    const other = { abcdefyz: [0] }; // 2 edits
    // "Both" has a key 1 edit away (found through a variant of 1 deletion) and one 2 edits away
    // (found through a variant of 2 deletions, after it).
    const nearestFirst = { ab: shard(entries, { abcdefg: { abcdefgx: [1] }, abcdef: { ...other, abcdefxy: [1] } }) };
    // Now the key 2 edits away is found first ("bcdefgh", 1 deletion), the nearer one last ("abcdef", 2).
    const nearestLast = {
      bc: shard(entries, { bcdefgh: { bcdefghx: [1] } }),
      ab: shard(entries, { abcdef: { ...other, abcdefg: [1] } }),
    };
    for (const shards of [nearestFirst, nearestLast])
      expect(merge(shards)).toEqual([
        { name: 'Both', level: 2 },
        { name: 'Other', level: 1 },
      ]);
  });

  test('a key beyond the edit budget is left out, and at most 25 records are listed', () => {
    const entries = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [i, { level: i + 1 }]));
    const positions = Array.from({ length: 30 }, (_, i) => i);
    const shards = { ab: shard(entries, { abcdef: { abcdefxy: positions, abcdxyzw: [0] } }) };
    expect(merge(shards)).toEqual(positions.slice(0, 25).map((i) => ({ level: i + 1 })));
    expect(merge({ ab: shard(entries, { abcdef: { abcdxyzw: [0] } }) })).toEqual([]);
  });
});
