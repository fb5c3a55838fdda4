// The Workers deployment limits of a build (src/build/deploy-limits.ts): what would fail is
// said in words, before a deploy.
import { describe, expect, test } from 'vitest';
import { deployProblems, MANIFEST_BUDGET_BYTES } from '../../src/build/deploy-limits.ts';

const MiB = 1024 * 1024;
const files = (count: number, size = 500) =>
  Array.from({ length: count }, (_, index) => ({ path: `api/trees/name/tree${index}.json`, size }));

describe('deployProblems', () => {
  test('a build within every limit has no problems', () => {
    expect(deployProblems(files(1_000), 90_000, 'free')).toEqual([]);
  });

  test('more than 20,000 files is too many on the free plan, not on the paid one', () => {
    expect(deployProblems(files(20_000), 0, 'free')).toEqual([]);
    expect(deployProblems(files(20_001), 0, 'free')).toEqual([
      '20,001 files: Workers static assets take at most 20,000 per version on the free plan, ' +
        'so wrangler deploy would refuse the upload.',
    ]);
    expect(deployProblems(files(20_001), 0, 'paid')).toEqual([]);
  });

  test('more than 100,000 files is too many on the paid plan', () => {
    expect(deployProblems(files(100_001), 0, 'paid')).toHaveLength(1);
    expect(deployProblems(files(100_001), 0, 'paid')[0]).toContain('at most 100,000 per version on the paid plan');
  });

  test('a file over 25 MiB is named', () => {
    const big = { path: 'api/trees/index.json', size: 25 * MiB + 1 };
    expect(deployProblems([...files(3), big, { path: 'a', size: 25 * MiB }], 0, 'free')).toEqual([
      'api/trees/index.json is 25.0 MiB: a static asset may be at most 25.0 MiB, so wrangler deploy would refuse it.',
    ]);
  });

  test('many files over 25 MiB: the first five are named, the rest counted', () => {
    const problems = deployProblems(files(8, 30 * MiB), 0, 'paid');
    expect(problems).toHaveLength(6);
    expect(problems[5]).toBe('... and 3 more files over 25.0 MiB.');
  });

  test('a manifest over its budget says the Worker would run out of memory', () => {
    expect(deployProblems([], MANIFEST_BUDGET_BYTES, 'paid')).toEqual([]);
    const [problem] = deployProblems([], MANIFEST_BUDGET_BYTES + 1, 'paid');
    expect(problem).toMatch(/^manifest\.json is 16\.0 MiB: .* 128\.0 MiB isolate .*exceeded memory\.$/);
  });
});
