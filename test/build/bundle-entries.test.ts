// A bundle the client would refuse is never written: past MAX_BUNDLE_ENTRIES entries (a tar's
// folders count as entries, as the client counts them) the build stops with TooManyBundleEntries.
import { describe, expect, test } from 'vitest';
import { packTarGz, packZip, TooManyBundleEntries } from '../../src/build/bundles.ts';
import type { NamedBytes } from '../../src/build/named-bytes.ts';
import { readArchive } from '../../src/client/archive.ts';
import { MAX_BUNDLE_ENTRIES } from '../../src/contract/bundle-layout.ts';

/** `count` small files, all in the folder api/. */
const files = (count: number): NamedBytes[] =>
  Array.from({ length: count }, (_unused, index) => ({
    name: `api/${String(index).padStart(4, '0')}.json`,
    bytes: new TextEncoder().encode('{}'),
  }));

describe(`past ${MAX_BUNDLE_ENTRIES} entries no bundle is written`, () => {
  test('a zip of one file more is refused with TooManyBundleEntries, naming the count and the cap', () => {
    expect(() => packZip(files(MAX_BUNDLE_ENTRIES + 1))).toThrow(TooManyBundleEntries);
    expect(() => packZip(files(MAX_BUNDLE_ENTRIES + 1))).toThrow(
      'The zip bundle would hold 4,097 entries; the client reads 4,096 at most',
    );
  });

  test('a tar.gz counts its folders: as many files as the cap, plus their folder, is refused', async () => {
    await expect(packTarGz(files(MAX_BUNDLE_ENTRIES))).rejects.toThrow(
      'The tar.gz bundle would hold 4,097 entries; the client reads 4,096 at most',
    );
  });
});

describe(`a bundle of exactly ${MAX_BUNDLE_ENTRIES} entries is written, and the client reads it`, () => {
  // 4,096 deflaters, each with its own buffers, take seconds on a busy machine: a timeout, not a timing check.
  test('a zip', { timeout: 120_000 }, async () => {
    expect((await readArchive(packZip(files(MAX_BUNDLE_ENTRIES)))).size).toBe(MAX_BUNDLE_ENTRIES);
  });

  test('a tar.gz (the folder api/ is its other entry)', async () => {
    expect((await readArchive(await packTarGz(files(MAX_BUNDLE_ENTRIES - 1)))).size).toBe(MAX_BUNDLE_ENTRIES - 1);
  });
});
