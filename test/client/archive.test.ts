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
/** Bytes no compressor shrinks, the same on every run: a linear congruential sequence's high bytes. */
function noise(length: number): Uint8Array {
  let state = 1;
  return Uint8Array.from({ length }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state >> 23;
  });
}

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

/** A tar of these entries, as tar-stream packs them (dated 1970, so the same bytes on every run). */
async function tarOf(entries: { name: string; text: string | Uint8Array }[]): Promise<Uint8Array> {
  const pack = tar.pack();
  for (const { name, text } of entries)
    pack.entry({ name, mtime: new Date(0) }, typeof text === 'string' ? text : Buffer.from(text));
  pack.finalize();
  const chunks: Uint8Array[] = [];
  for await (const chunk of pack as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A tar.gz of these entries, as tar-stream packs them. */
const tarGz = async (entries: { name: string; text: string }[]) => gzipSync(await tarOf(entries));

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

  test('a .tar.gz that inflates to exactly its cap is read; one byte more is refused', async () => {
    // A tar is its file's header, its data in 512-byte blocks and two empty blocks: 16 MiB in all.
    const tarball = await tarOf([{ name: 'data/zeros.bin', text: new Uint8Array(INFLATION_ALLOWANCE - 3 * 512) }]);
    expect(tarball.length).toBe(INFLATION_ALLOWANCE);
    const files = await readArchive(gzipSync(tarball));
    expect(files.get('data/zeros.bin')?.length).toBe(INFLATION_ALLOWANCE - 3 * 512);
    const oneMore = gzipSync(Buffer.concat([tarball, Buffer.alloc(1)]));
    await expect(readArchive(oneMore)).rejects.toThrow(
      `The archive inflates past ${INFLATION_ALLOWANCE.toLocaleString('en-US')} bytes, `,
    );
  });

  test('a zip whose entries declare exactly its cap is read; one byte more is refused', async () => {
    const data = deflatedZeros(INFLATION_ALLOWANCE / (1024 * 1024));
    const files = await readArchive(zipOf([{ name: 'data/zeros.bin', data, size: INFLATION_ALLOWANCE }]));
    expect(files.get('data/zeros.bin')?.length).toBe(INFLATION_ALLOWANCE);
    await expect(readArchive(zipOf([{ name: 'data/zeros.bin', data, size: INFLATION_ALLOWANCE + 1 }]))).rejects.toThrow(
      /^The archive declares 16,777,217 bytes of files, more than 16,777,216 bytes, /,
    );
  });

  test('a .tar.gz cut short, at the end of a 4,096-byte slice or within one, is damaged', async () => {
    // 20 KiB of gzip: the cuts fall inside deflate blocks, where fflate reports the end missing.
    const whole = await tarGz([{ name: 'data/noise.bin', text: Buffer.from(noise(20_000)).toString('base64') }]);
    for (const length of [8192, 16_000])
      await expect(readArchive(whole.subarray(0, length))).rejects.toThrow(
        new BundleError('The archive is damaged: unexpected EOF'),
      );
  });

  test('deflate data of exactly one slice of 4,096 bytes, or a byte more, is read', async () => {
    for (const size of [4096 - 5, 4096 - 4]) {
      // Noise does not compress: deflate stores it in one block, 5 bytes of header and the bytes.
      const data = deflateRawSync(noise(size));
      expect(data.length).toBe(size + 5);
      const files = await readArchive(zipOf([{ name: 'data/noise.bin', data, size }]));
      expect(files.get('data/noise.bin')).toEqual(noise(size));
    }
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

  test('entries listed out of their order in the archive are read: overlaps go by offset', async () => {
    const zip = zipOf([
      { name: 'a.json', data: deflateRawSync(bytes('{"a":1}')), size: 7 },
      { name: 'b.json', data: deflateRawSync(bytes('{"b":2}')), size: 7 },
    ]);
    // The directory's two headers (46 bytes and a 6-byte name each) swapped: b.json listed first.
    const directory = zip.length - 22 - 2 * 52;
    const swapped = Buffer.concat([
      zip.subarray(0, directory),
      zip.subarray(directory + 52, directory + 104),
      zip.subarray(directory, directory + 52),
      zip.subarray(directory + 104),
    ]);
    expect([...(await readArchive(swapped)).keys()]).toEqual(['b.json', 'a.json']);
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

  test(`exactly ${MAX_ENTRIES} entries are read, in a zip (counted by its end record) and a tar.gz`, async () => {
    const names = Array.from({ length: MAX_ENTRIES }, (_, index) => `api/${index}.json`);
    const zip = await readArchive(zipSync(Object.fromEntries(names.map((name) => [name, bytes('{}')]))));
    expect(zip.size).toBe(MAX_ENTRIES);
    const tarball = await readArchive(await tarGz(names.map((name) => ({ name, text: '{}' }))));
    expect(tarball.size).toBe(MAX_ENTRIES);
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

/** The offsets of a one-entry zip of zipOf's: its central header and its end record. */
interface ZipOffsets {
  central: number;
  end: number;
}

/** A zip of one deflated entry, a.json holding `text`, with `change` made to its bytes. */
function alteredZip(change: (view: DataView, at: ZipOffsets) => void, text = '{"a":1}'): Uint8Array {
  const data = deflateRawSync(bytes(text));
  const zip = zipOf([{ name: 'a.json', data, size: text.length }]);
  change(new DataView(zip.buffer, zip.byteOffset, zip.byteLength), {
    central: 30 + 6 + data.length,
    end: zip.length - 22,
  });
  return zip;
}

describe('a zip is read from its central directory, each entry checked against its local header', () => {
  test('a zip as the bombs are written, unaltered, is read: the checks below refuse only what they name', async () => {
    const files = await readArchive(alteredZip(() => {}));
    expect(new TextDecoder().decode(files.get('a.json'))).toBe('{"a":1}');
  });

  test('a zip with a comment after its end record is read', async () => {
    const zip = alteredZip((view, { end }) => view.setUint16(end + 20, 3, true));
    const files = await readArchive(Buffer.concat([zip, Buffer.from('abc')]));
    expect([...files.keys()]).toEqual(['a.json']);
  });

  test('a zip with the longest comment, 65,535 bytes, is read: its end record is found', async () => {
    const zip = alteredZip((view, { end }) => view.setUint16(end + 20, 0xffff, true));
    const files = await readArchive(Buffer.concat([zip, Buffer.alloc(0xffff, 'x')]));
    expect([...files.keys()]).toEqual(['a.json']);
  });

  test('entries with an extra field and a comment are read: the walk steps over both, in each header', async () => {
    const entry = (name: string, text: string) => ({
      name,
      data: deflateRawSync(bytes(text)),
      size: text.length,
      localExtra: 8,
      centralExtra: 4,
      comment: 5,
    });
    const files = await readArchive(zipOf([entry('a.json', '{"a":1}'), entry('b.json', '{"b":2}')]));
    expect(Object.fromEntries([...files].map(([name, data]) => [name, new TextDecoder().decode(data)]))).toEqual({
      'a.json': '{"a":1}',
      'b.json': '{"b":2}',
    });
  });

  test('the central directory is the size its end record gives: an entry past it is missing', async () => {
    const entry = (name: string) => ({ name, data: deflateRawSync(bytes('{}')), size: 2 });
    const zip = zipOf([entry('a.json'), entry('b.json')]);
    // The directory's size cut to its first entry's header and name: the second lies past it.
    new DataView(zip.buffer, zip.byteOffset, zip.byteLength).setUint32(zip.length - 22 + 12, 46 + 6, true);
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: entry 2 of its central directory is missing.',
    );
  });

  test('a directory entry whose name or comment runs past the directory, by a byte or more, is damaged', async () => {
    const withComment = (directorySize: number) => {
      const zip = zipOf([{ name: 'a.json', data: deflateRawSync(bytes('{}')), size: 2, comment: 3 }]);
      new DataView(zip.buffer, zip.byteOffset, zip.byteLength).setUint32(zip.length - 22 + 12, directorySize, true);
      return zip;
    };
    expect([...(await readArchive(withComment(46 + 6 + 3))).keys()]).toEqual(['a.json']);
    for (const cut of [46 + 6 + 2, 46])
      await expect(readArchive(withComment(cut))).rejects.toThrow(
        'The archive is damaged: entry 1 of its central directory runs past its end.',
      );
  });

  test('a zip without an end record, or with a comment of another length, is damaged', async () => {
    const zip = alteredZip(() => {});
    await expect(readArchive(zip.subarray(0, zip.length - 1))).rejects.toThrow(
      'The archive is damaged: it has no end of central directory record.',
    );
    await expect(readArchive(Buffer.concat([zip, Buffer.from('abc')]))).rejects.toThrow(
      'The archive is damaged: it has no end of central directory record.',
    );
  });

  test('a zip of several disks is refused as damaged', async () => {
    const spanning = 'The archive is damaged: it spans several disks.';
    await expect(readArchive(alteredZip((view, { end }) => view.setUint16(end + 4, 1, true)))).rejects.toThrow(
      spanning,
    );
    await expect(readArchive(alteredZip((view, { end }) => view.setUint16(end + 8, 2, true)))).rejects.toThrow(
      spanning,
    );
  });

  test('a central directory said to reach past the end record is damaged', async () => {
    const zip = alteredZip((view, { end }) => view.setUint32(end + 12, view.getUint32(end + 12, true) + 1, true));
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: its central directory lies past its end record.',
    );
  });

  test('an entry the end record counts but the central directory lacks is damaged, named by its number', async () => {
    const zip = alteredZip((view, { end }) => {
      view.setUint16(end + 8, 2, true);
      view.setUint16(end + 10, 2, true);
    });
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: entry 2 of its central directory is missing.',
    );
    const notAHeader = alteredZip((view, { central }) => view.setUint32(central, 0x02014b51, true));
    await expect(readArchive(notAHeader)).rejects.toThrow(
      'The archive is damaged: entry 1 of its central directory is missing.',
    );
  });

  test('an encrypted entry is refused, named', async () => {
    const zip = alteredZip((view, { central }) => view.setUint16(central + 8, 0x1, true));
    await expect(readArchive(zip)).rejects.toThrow(
      new BundleError('a.json is encrypted: a bundle never is.', 'a.json'),
    );
  });

  test('a compression method other than stored or deflate is refused, named', async () => {
    const zip = alteredZip((view, { central }) => view.setUint16(central + 10, 12, true));
    await expect(readArchive(zip)).rejects.toThrow(
      new BundleError('a.json uses compression method 12: a bundle uses deflate only.', 'a.json'),
    );
  });

  test('an entry whose local header is not where the central directory says is damaged', async () => {
    const missing = 'The archive is damaged: the local header of a.json is missing.';
    await expect(readArchive(alteredZip((view, { central }) => view.setUint32(central + 42, 1, true)))).rejects.toThrow(
      missing,
    );
  });

  test('a local header lies before the central directory: one running into it by a byte is missing', async () => {
    const at = (central: number, back: number) => (view: DataView) => {
      view.setUint32(central - back, 0x04034b50, true);
      view.setUint32(central + 42, central - back, true);
    };
    const central = 30 + 6 + deflateRawSync(bytes('{"a":1}')).length;
    await expect(readArchive(alteredZip((view) => at(central, 29)(view)))).rejects.toThrow(
      'The archive is damaged: the local header of a.json is missing.',
    );
    // One that just fits is read on: its name and data can then only lie in the directory.
    await expect(readArchive(alteredZip((view) => at(central, 30)(view)))).rejects.toThrow(
      'The archive is damaged: the data of a.json runs into its central directory.',
    );
  });

  test('a local header that names another file than the central directory is damaged', async () => {
    const zip = alteredZip((view) => view.setUint8(30, 'b'.charCodeAt(0)));
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: the local header of a.json names another file.',
    );
  });

  test('an entry whose data would run into the central directory is damaged', async () => {
    const zip = alteredZip((view, { central }) =>
      view.setUint32(central + 20, view.getUint32(central + 20, true) + 1, true),
    );
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: the data of a.json runs into its central directory.',
    );
  });

  test('a stored entry is read as it is; one stored with two sizes is damaged', async () => {
    const stored = (size: number) =>
      zipOf([{ name: 'a.json', data: bytes('{"a":1}'), size }]).map((byte, index) =>
        index === 8 || index === 36 + 7 + 10 ? 0 : byte,
      );
    expect(new TextDecoder().decode((await readArchive(stored(7))).get('a.json'))).toBe('{"a":1}');
    await expect(readArchive(stored(8))).rejects.toThrow('The archive is damaged: a.json is stored with two sizes.');
  });

  test('the files read are copies: changing the archive afterwards changes no file, stored or deflated', async () => {
    const storedZip = zipOf([{ name: 'a.json', data: bytes('{"a":1}'), size: 7 }]).map((byte, index) =>
      index === 8 || index === 36 + 7 + 10 ? 0 : byte,
    );
    for (const archive of [storedZip, alteredZip(() => {})]) {
      const files = await readArchive(archive);
      archive.fill(0);
      expect(new TextDecoder().decode(files.get('a.json'))).toBe('{"a":1}');
    }
  });

  test('an entry that inflates to fewer bytes than it declares is damaged, with both figures', async () => {
    const zip = alteredZip((view, { central }) => {
      view.setUint32(22, 1200, true);
      view.setUint32(central + 24, 1200, true);
    });
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: a.json inflates to 7 bytes, not the 1,200 it declares.',
    );
  });

  test('names are UTF-8 with the flag for it, a byte a character without', async () => {
    const name = 'ä.json';
    const utf8 = bytes(name);
    const data = deflateRawSync(bytes('{}'));
    const zipNamed = (flags: number) => {
      const zip = zipOf([{ name, data, size: 2 }]);
      const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
      view.setUint16(6, flags, true);
      view.setUint16(30 + utf8.length + data.length + 8, flags, true);
      return zip;
    };
    expect([...(await readArchive(zipNamed(0x800))).keys()]).toEqual([name]);
    expect([...(await readArchive(zipNamed(0))).keys()]).toEqual([String.fromCharCode(...utf8)]);
  });
});
