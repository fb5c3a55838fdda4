// Reading archives (src/client/archive.ts) that the build's packers never make: entries in
// several chunks, folder and link entries, "./" prefixes. Bundles from elsewhere may have any of
// these, and may be zip bombs: too many entries, too many bytes, overlapping entries.
import { crc32, deflateRawSync, gzipSync as nodeGzipSync } from 'node:zlib';
import { gzipSync, zipSync } from 'fflate';
import tar from 'tar-stream';
import { describe, expect, test } from 'vitest';
import { packTarGz } from '../../src/build/bundles.ts';
import {
  INFLATION_ALLOWANCE,
  inflationLimit,
  MAX_INFLATED_BYTES,
  MAX_INFLATION_RATIO,
  readArchive,
} from '../../src/client/archive.ts';
import { BundleError } from '../../src/client/errors.ts';
import { MAX_BUNDLE_ENTRIES } from '../../src/contract/bundle-layout.ts';
import { MAX_GZIP_HEADER_BYTES } from '../../src/client/gzip.ts';
import {
  deflatedZeros,
  gzipBomb,
  gzipTrailerChanged,
  gzipWithFileName,
  type TarEntrySpec,
  tarOf,
  zipOf,
  zipWithHiddenEntry,
} from '../support/hostile-bundles.ts';

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

  test('in a tar, folders are left out and files read', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'api', type: 'directory' });
    pack.entry({ name: 'api/x.json' }, '[]');
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
const tarGz = async (entries: TarEntrySpec[]) => gzipSync(await tarOf(entries));

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
    const bomb = zipOf([{ name: 'data/trees.json', data: deflatedZeros(64), size: 64 * 1024 * 1024, crc: 0 }]);
    await expect(readArchive(bomb)).rejects.toThrow(
      /^The archive declares 67,108,864 bytes of files, more than 16,777,216 bytes, .* refused as a zip bomb\.$/,
    );
  });

  test('a zip entry that inflates past the size it declares is refused, named', async () => {
    const bomb = zipOf([{ name: 'data/trees.json', data: deflatedZeros(64), size: 1000, crc: 0 }]);
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

  test(`more than ${MAX_BUNDLE_ENTRIES} entries are refused, in a zip and in a tar.gz`, async () => {
    const names = Array.from({ length: MAX_BUNDLE_ENTRIES + 1 }, (_, index) => `api/${index}.json`);
    await expect(readArchive(zipSync(Object.fromEntries(names.map((name) => [name, bytes('{}')]))))).rejects.toThrow(
      `The archive holds 4,097 entries; a bundle may hold ${MAX_BUNDLE_ENTRIES.toLocaleString('en-US')} at most.`,
    );
    await expect(readArchive(await tarGz(names.map((name) => ({ name, text: '{}' }))))).rejects.toThrow(
      'The archive holds more than 4,096 entries; a bundle may hold 4,096 at most.',
    );
  });

  test(`exactly ${MAX_BUNDLE_ENTRIES} entries are read, in a zip (its end record's count) and a tar.gz`, async () => {
    const names = Array.from({ length: MAX_BUNDLE_ENTRIES }, (_, index) => `api/${index}.json`);
    const zip = await readArchive(zipSync(Object.fromEntries(names.map((name) => [name, bytes('{}')]))));
    expect(zip.size).toBe(MAX_BUNDLE_ENTRIES);
    const tarball = await readArchive(await tarGz(names.map((name) => ({ name, text: '{}' }))));
    expect(tarball.size).toBe(MAX_BUNDLE_ENTRIES);
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
      zipOf([{ name: 'a.json', data: bytes('{"a":1}'), size, crc: crc32(bytes('{"a":1}')) }]).map((byte, index) =>
        index === 8 || index === 36 + 7 + 10 ? 0 : byte,
      );
    expect(new TextDecoder().decode((await readArchive(stored(7))).get('a.json'))).toBe('{"a":1}');
    await expect(readArchive(stored(8))).rejects.toThrow('The archive is damaged: a.json is stored with two sizes.');
  });

  test('the files read are copies: changing the archive afterwards changes no file, stored or deflated', async () => {
    const storedZip = zipOf([{ name: 'a.json', data: bytes('{"a":1}'), size: 7, crc: crc32(bytes('{"a":1}')) }]).map(
      (byte, index) => (index === 8 || index === 36 + 7 + 10 ? 0 : byte),
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

describe('a gzip header is read once, in one pass, and capped', () => {
  const cap = MAX_GZIP_HEADER_BYTES.toLocaleString('en-US');
  test(`a header over ${cap} bytes (a 5 MB file name) is refused, named, in one pass`, async () => {
    const archive = gzipWithFileName(await tarOf([{ name: 'a.json', text: '{}' }]), 5_000_000);
    await expect(readArchive(archive)).rejects.toThrow(
      new BundleError(
        "The archive's gzip header is longer than 65,536 bytes (its file name, comment or extra field): " +
          'a bundle is refused with one.',
      ),
    );
  });

  test('a header of every optional field within the cap is read: extra, file name, comment, CRC', async () => {
    const tarball = await tarOf([{ name: 'a.json', text: '{}' }]);
    const member = gzipSync(tarball);
    const fields = Buffer.concat([
      Buffer.from([4, 0]),
      Buffer.from('xtra'),
      Buffer.alloc(60_000, 'n'),
      Buffer.from([0]),
      Buffer.from('a comment\0'),
    ]);
    const header = Buffer.concat([Buffer.from(member.subarray(0, 10)), fields]);
    header[3] = 0x4 | 0x8 | 0x10 | 0x2;
    const headerCrc = Buffer.alloc(2);
    headerCrc.writeUInt16LE(crc32(header) & 0xffff);
    const archive = Buffer.concat([header, headerCrc, member.subarray(10)]);
    expect([...(await readArchive(archive)).keys()]).toEqual(['a.json']);
    headerCrc.writeUInt16LE((crc32(header) + 1) & 0xffff);
    await expect(readArchive(Buffer.concat([header, headerCrc, member.subarray(10)]))).rejects.toThrow(
      'The archive is damaged: its gzip header fails its CRC.',
    );
  });
});

describe('what is read is what `tar -x` and `unzip` make: anything else is refused, named', () => {
  test.each([
    ['symlink', 'a symbolic link to /etc/passwd'],
    ['link', 'a hard link to /etc/passwd'],
  ] as const)('a tar %s after the real file is refused, naming it', async (type, what) => {
    const archive = await tarGz([
      { name: 'data/trees.json', text: '[]' },
      { name: 'data/trees.json', type, linkname: '/etc/passwd' },
    ]);
    await expect(readArchive(archive)).rejects.toThrow(
      new BundleError(`data/trees.json is ${what}: a bundle holds only files and folders.`, 'data/trees.json'),
    );
  });

  test.each([
    ['character-device', 'a character device'],
    ['block-device', 'a block device'],
    ['fifo', 'a FIFO'],
  ] as const)('a tar %s is refused, naming it', async (type, what) => {
    const archive = await tarGz([{ name: 'data/x', type }]);
    await expect(readArchive(archive)).rejects.toThrow(
      new BundleError(`data/x is ${what}: a bundle holds only files and folders.`, 'data/x'),
    );
  });

  test('a tar file whose name ends in "/" is refused; a folder entry is read as none', async () => {
    await expect(readArchive(await tarGz([{ name: 'data/trees.json/', text: '[]' }]))).rejects.toThrow(
      new BundleError(
        'data/trees.json/ is a file named as a folder (its name ends in "/"): tar makes a folder of it.',
        'data/trees.json/',
      ),
    );
    const folder = await tarGz([
      { name: 'data/', type: 'directory' },
      { name: 'data/a.json', text: '{}' },
    ]);
    expect([...(await readArchive(folder)).keys()]).toEqual(['data/a.json']);
  });

  test("an entry after the tar's end-of-archive marker, which tar never reads, is refused", async () => {
    const hidden = Buffer.concat([
      await tarOf([{ name: 'a.json', text: '{}' }]),
      await tarOf([{ name: 'b.json', text: '{}' }]),
    ]);
    await expect(readArchive(gzipSync(hidden))).rejects.toThrow(
      "The archive holds data after its tar's end-of-archive marker, which tar never reads.",
    );
  });

  test('long names, as pax headers and GNU long-name headers give them, are read', async () => {
    const long = `data/${'x'.repeat(200)}.json`;
    const pax = await tarGz([{ name: long, text: '{}' }]);
    expect([...(await readArchive(pax)).keys()]).toEqual([long]);
    // A GNU long name: an "L" entry holding the name, then the file's header with its name cut.
    const name = Buffer.concat([Buffer.from(long), Buffer.alloc(1)]);
    const gnu = await tarOf([
      { name: '././@LongLink', text: name },
      { name: long.slice(0, 99), text: '{}' },
    ]);
    gnu[156] = 'L'.charCodeAt(0);
    rechecksum(gnu, 0);
    expect([...(await readArchive(gzipSync(gnu))).keys()]).toEqual([long]);
  });

  test.each([
    ['cut before its trailer', 8],
    ['cut within its trailer', 3],
  ])('a .tar.gz %s is damaged', async (_, cut) => {
    const whole = await tarGz([{ name: 'a.json', text: '{}' }]);
    await expect(readArchive(gzipTrailerChanged(whole, 'cut', cut))).rejects.toThrow(
      'The archive is damaged: its gzip trailer is cut short.',
    );
  });

  test("a .tar.gz failing its trailer's CRC-32, or of another length than it says, is damaged", async () => {
    const whole = await tarGz([{ name: 'a.json', text: '{}' }]);
    await expect(readArchive(gzipTrailerChanged(whole, 'crc'))).rejects.toThrow(
      /^The archive is damaged: its data fails the CRC-32 of its gzip trailer/,
    );
    await expect(readArchive(gzipTrailerChanged(whole, 'length'))).rejects.toThrow(
      'The archive is damaged: it inflates to 2,048 bytes; its gzip trailer says 2,049 (modulo 4 GiB).',
    );
  });

  test('bytes after the gzip member (another member, or anything) are refused', async () => {
    const whole = await tarGz([{ name: 'a.json', text: '{}' }]);
    const second = gzipSync(await tarOf([{ name: 'b.json', text: '{}' }]));
    await expect(readArchive(Buffer.concat([whole, second]))).rejects.toThrow(
      `The archive is damaged: ${second.length} bytes follow its gzip member; a bundle is one gzip member.`,
    );
  });

  test('the end of the deflate data is found after stored blocks as after coded ones', async () => {
    const tarball = await tarOf([{ name: 'a.bin', text: noise(20_000) }]);
    for (const level of [0, 9]) {
      const member = nodeGzipSync(tarball, { level });
      expect((await readArchive(member)).get('a.bin')).toEqual(noise(20_000));
      await expect(readArchive(Buffer.concat([member, Buffer.alloc(1)]))).rejects.toThrow(
        'The archive is damaged: 1 byte follows its gzip member; a bundle is one gzip member.',
      );
    }
  });

  test('a zip entry that only the local headers list is refused, naming it', async () => {
    const entry = (name: string) => ({ name, data: deflateRawSync(bytes('{}')), size: 2 });
    const zip = zipWithHiddenEntry([entry('a.json'), entry('b.json')], entry('hidden.json'), 1);
    await expect(readArchive(zip)).rejects.toThrow(
      new BundleError(
        'The archive holds hidden.json in a local header that its central directory does not list: ' +
          'unzip would not show it, a reader of the local headers would.',
        'hidden.json',
      ),
    );
  });

  test('bytes before the first entry or before the central directory that it does not list are refused', async () => {
    const zip = zipOf([{ name: 'a.json', data: deflateRawSync(bytes('{}')), size: 2 }]);
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    view.setUint32(zip.length - 22 + 16, view.getUint32(zip.length - 22 + 16, true) + 5, true);
    const padded = Buffer.concat([
      zip.subarray(0, zip.length - 22 - 52),
      Buffer.alloc(5),
      zip.subarray(zip.length - 22 - 52),
    ]);
    await expect(readArchive(padded)).rejects.toThrow(
      'The archive holds 5 bytes at byte 40 that its central directory does not list.',
    );
  });

  test('a zip entry whose bytes fail its CRC-32 is damaged, named', async () => {
    const zip = zipOf([{ name: 'a.json', data: deflateRawSync(bytes('{}')), size: 2, crc: 1 }]);
    await expect(readArchive(zip)).rejects.toThrow(
      new BundleError(
        'The archive is damaged: a.json fails its CRC-32 check ' +
          `(the archive gives 00000001; its bytes have ${crc32(bytes('{}')).toString(16)}).`,
        'a.json',
      ),
    );
  });

  test('a zip entry whose local header gives another CRC-32 than the central directory is damaged', async () => {
    const zip = alteredZip((view) => view.setUint32(14, view.getUint32(14, true) ^ 1, true));
    await expect(readArchive(zip)).rejects.toThrow(
      'The archive is damaged: the local header of a.json gives another CRC-32 or size than its central directory.',
    );
  });

  test('a zip entry with a data descriptor after its data is read; one that differs is damaged', async () => {
    const data = deflateRawSync(bytes('{"a":1}'));
    const withDescriptor = (crc: number) => {
      const zip = zipOf([{ name: 'a.json', data, size: 7 }]);
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(data.length, 8);
      descriptor.writeUInt32LE(7, 12);
      const local = 30 + 6 + data.length;
      const result = Buffer.concat([zip.subarray(0, local), descriptor, zip.subarray(local)]);
      // The flag in both headers, the local header's CRC and sizes zeroed, the directory moved.
      result.writeUInt16LE(0x8, 6);
      result.fill(0, 14, 26);
      result.writeUInt16LE(0x8, local + 16 + 8);
      result.writeUInt32LE(local + 16, result.length - 22 + 16);
      return result;
    };
    const files = await readArchive(withDescriptor(crc32(bytes('{"a":1}'))));
    expect(new TextDecoder().decode(files.get('a.json'))).toBe('{"a":1}');
    await expect(readArchive(withDescriptor(1))).rejects.toThrow(
      'The archive is damaged: the data descriptor of a.json differs from its central directory entry.',
    );
  });

  test.each([
    [0o120777, 'a symbolic link'],
    [0o010644, 'a FIFO'],
    [0o020644, 'a character device'],
  ])('a zip entry made on Unix with mode %o is refused, named', async (mode, what) => {
    const zip = alteredZip((view, { central }) => {
      view.setUint16(central + 4, (3 << 8) | 20, true);
      view.setUint32(central + 38, mode * 0x10000, true);
    });
    await expect(readArchive(zip)).rejects.toThrow(
      new BundleError(`a.json is ${what} (its Unix mode): a bundle holds only files and folders.`, 'a.json'),
    );
  });

  test('a zip entry with bytes whose name ends in "/" is refused; an empty one is a folder, read as none', async () => {
    const entry = (name: string, text: string) => ({ name, data: deflateRawSync(bytes(text)), size: text.length });
    await expect(readArchive(zipOf([entry('data/', '[]')]))).rejects.toThrow(
      new BundleError('data/ is a file named as a folder (its name ends in "/"): unzip makes a folder of it.', 'data/'),
    );
    expect([...(await readArchive(zipOf([entry('data/', ''), entry('data/a.json', '{}')]))).keys()]).toEqual([
      'data/a.json',
    ]);
  });
});

/** Writes a tar header's checksum again after a change to the header at `at`. */
function rechecksum(tarball: Uint8Array, at: number): void {
  const header = tarball.subarray(at, at + 512);
  header.fill(0x20, 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.set(bytes(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
}
