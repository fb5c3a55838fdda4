// The brotli quality of the API's bodies (src/build/emit.ts): the best compression for every
// answer players ask for, and a quicker one for the few bodies past 1 MiB (the full lists of a
// large game), which every release that changes a record makes anew.
import { expect, test } from 'vitest';
import { brotliQuality } from '../../src/build/emit.ts';

test('bodies up to 1 MiB are compressed at brotli quality 11, larger ones at 9', () => {
  const MiB = 1024 * 1024;
  expect([0, 600, MiB - 1, MiB, MiB + 1, 3 * MiB].map(brotliQuality)).toEqual([11, 11, 11, 11, 9, 9]);
});
