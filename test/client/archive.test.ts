// Reading archives (src/client/archive.ts) that the build's packers never make: entries in
// several chunks, folder and link entries, "./" prefixes. Bundles from elsewhere may have any of
// these, and may be zip bombs: too many entries, too many bytes, overlapping entries.
import { deflateRawSync } from 'node:zlib';
import { gzipSync, zipSync } from 'fflate';
import tar from 'tar-stream';
import { describe, expect, test } from 'vitest';
import { packTarGz } from '../../src/build/bundles.ts';
import {
  INFLATION_ALLOWANCE,
  inflationLimit,
  MAX_ENTRIES,
  MAX_INFLATED_BYTES,
  MAX_INFLATION_RATIO,
  readArchive,
} from '../../src/client/archive.ts';
import { BundleError } from '../../src/client/errors.ts';
import { deflatedZeros, gzipBomb, zipOf } from './hostile-bundles.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readArchive', () => {
  test('a file larger than one chunk of the tar stream is read whole', async () => {
    const large = Uint8Array.from({ length: 300_000 }, (_, index) => (index * 7) % 251);
    const files = await readArchive(await packTarGz([{ name: 'data/large.bin', bytes: large }]));
    expect(files.get('data/large.bin')?.length).toBe(large.length);
    expect(Buffer.from(files.get('data/large.bin') ?? []).equals(Buffer.from(large))).toBe(true);
  });

  test('folder entries are left out and a leading ./ is dropped', async () => {
    const zip = zipSync({ 'api/': new Uint8Array(0), './manifest.json': bytes('{}'), 'api/x.json': bytes('[]') });
    const files = await readArchive(zip);
    expect([...files.keys()].sort()).toEqual(['api/x.json', 'manifest.json']);
  });

  test('only a leading ./ is dropped: one inside a path stays', async () => {
    const files = await readArchive(zipSync({ 'notes/v2./read.me': bytes('x') }));
    expect([...files.keys()]).toEqual(['notes/v2./read.me']);
  });

  test('in a tar, only files are read: links and folders are left out', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'api', type: 'directory' });
    pack.entry({ name: 'api/x.json' }, '[]');
    pack.entry({ name: 'api/link.json', type: 'symlink', linkname: 'x.json' });
    pack.finalize();
    const chunks: Uint8Array[] = [];
    for await (const chunk of pack as AsyncIterable<Uint8Array>) chunks.push(chunk);
    const files = await readArchive(gzipSync(Buffer.concat(chunks)));
    expect([...files.keys()]).toEqual(['api/x.json']);
  });

  test('an archive that starts like one but is damaged: "The archive is damaged"', async () => {
    const zip = zipSync({ 'a.json': bytes('{"a":1}') });
    await expect(readArchive(zip.subarray(0, 20))).rejects.toThrow(/^The archive is damaged: /);
    await expect(readArchive(zip.subarray(0, 20))).rejects.toBeInstanceOf(BundleError);
  });
});

/** A tar.gz of these entries, as tar-stream packs them. */
async function tarGz(entries: { name: string; text: string }[]): Promise<Uint8Array> {
  const pack = tar.pack();
  for (const { name, text } of entries) pack.entry({ name }, text);
  pack.finalize();
  const chunks: Uint8Array[] = [];
  for await (const chunk of pack as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return gzipSync(Buffer.concat(chunks));
}

const refusal = (archive: Uint8Array) =>
  readArchive(archive).then(
    () => undefined,
    (error: unknown) => error,
  );

describe('an archive is untrusted input: a bomb is refused before it inflates past the caps', () => {
  test('a .tar.gz that inflates past its cap is refused while inflating, not after', async () => {
    // 64 KiB that inflate to 64 MiB: past the 16 MiB any archive may inflate to.
    const bomb = gzipBomb(64);
    const error = await refusal(bomb);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as Error).message).toBe(
      `The archive inflates past ${INFLATION_ALLOWANCE.toLocaleString('en-US')} bytes, the most an archive of ` +
        `${bomb.length.toLocaleString('en-US')} bytes may inflate to (${MAX_INFLATION_RATIO} times its size, ` +
        'at least 16 MiB, at most 256 MiB): refused as a zip bomb.',
    );
  });

  test('a zip whose entries declare more than its cap is refused before anything is inflated', async () => {
    const bomb = zipOf([{ name: 'data/trees.json', data: deflatedZeros(64), size: 64 * 1024 * 1024 }]);
    await expect(readArchive(bomb)).rejects.toThrow(
      /^The archive declares 67,108,864 bytes of files, more than 16,777,216 bytes, .* refused as a zip bomb\.$/,
    );
  });

  test('a zip entry that inflates past the size it declares is refused, named', async () => {
    const bomb = zipOf([{ name: 'data/trees.json', data: deflatedZeros(64), size: 1000 }]);
    const error = await refusal(bomb);
    expect(error).toBeInstanceOf(BundleError);
    expect(error).toMatchObject({
      file: 'data/trees.json',
      message: 'data/trees.json inflates past the 1,000 bytes the archive declares for it.',
    });
  });

  test('the inflation cap is 50 times the archive, at least 16 MiB, at most 256 MiB', () => {
    expect([1, 256 * 1024, 4 * 1024 * 1024, 1024 * 1024 * 1024].map(inflationLimit)).toEqual([
      INFLATION_ALLOWANCE,
      INFLATION_ALLOWANCE,
      MAX_INFLATION_RATIO * 4 * 1024 * 1024,
      MAX_INFLATED_BYTES,
    ]);
  });

  test('zip entries that share bytes (one entry covering the next) are refused', async () => {
    const first = deflateRawSync(bytes('{"a":1}'));
    const second = deflateRawSync(bytes('{"b":2}'));
    const covering = first.length + 30 + 'b.json'.length + second.length;
    const zip = zipOf([
      { name: 'a.json', data: first, size: 7, compressedSize: covering },
      { name: 'b.json', data: second, size: 7 },
    ]);
    await expect(readArchive(zip)).rejects.toThrow(
      new BundleError(
        "a.json overlaps b.json in the archive: entries that share bytes are refused (a zip bomb's trick).",
        'a.json',
      ),
    );
  });

  test(`more than ${MAX_ENTRIES} entries are refused, in a zip and in a tar.gz`, async () => {
    const names = Array.from({ length: MAX_ENTRIES + 1 }, (_, index) => `api/${index}.json`);
    await expect(readArchive(zipSync(Object.fromEntries(names.map((name) => [name, bytes('{}')]))))).rejects.toThrow(
      `The archive holds 4,097 entries; a bundle may hold ${MAX_ENTRIES.toLocaleString('en-US')} at most.`,
    );
    await expect(readArchive(await tarGz(names.map((name) => ({ name, text: '{}' }))))).rejects.toThrow(
      'The archive holds more than 4,096 entries; a bundle may hold 4,096 at most.',
    );
  });

  test('a path held twice is refused: which copy a reader keeps is up to the reader', async () => {
    const archive = await tarGz([
      { name: 'data/trees.json', text: '[]' },
      { name: './data/trees.json', text: '[1]' },
    ]);
    await expect(readArchive(archive)).rejects.toThrow(
      new BundleError('The archive holds data/trees.json twice.', 'data/trees.json'),
    );
  });
});
