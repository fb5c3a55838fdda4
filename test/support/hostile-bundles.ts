// Archives an attacker makes: a bundle forged with its inner manifest recomputed, so it passes
// the bundle's self-check; zip bombs (gzip and zip) whose deflate data costs a thousandth of
// what it inflates to; gzip headers of megabytes; tars of links, devices and FIFOs; zips with
// entries only their local headers list. The tests alter these further (CRCs, trailers, cuts).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { writeFile } from 'node:fs/promises';
import { constants, crc32, createDeflateRaw, createGzip, deflateRawSync, gzipSync, inflateRawSync } from 'node:zlib';
import tar from 'tar-stream';
import { bundleEntries } from '../../src/build/bundles.ts';
import type { NamedBytes } from '../../src/build/named-bytes.ts';
import type { Content } from '../../src/build/content.ts';
import { MAX_INFLATED_BYTES } from '../../src/client/archive.ts';
import { BUNDLE_MANIFEST, type BundleFormat } from '../../src/contract/bundle-layout.ts';
import type { Manifest } from '../../src/schema/manifest.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** `entries` with the manifest listing exactly their files, each with its sha256 and size. */
export function withManifestRecomputed(entries: NamedBytes[]): NamedBytes[] {
  return entries.map((entry) => {
    if (entry.name !== BUNDLE_MANIFEST) return entry;
    const manifest = JSON.parse(decode(entry.bytes)) as Manifest;
    manifest.files = Object.fromEntries(
      entries
        .filter((file) => file.name !== BUNDLE_MANIFEST)
        .map((file) => [file.name, { sha256: sha256(file.bytes), size: file.bytes.length }]),
    );
    return { name: entry.name, bytes: encode(JSON.stringify(manifest)) };
  });
}

/** The bundle of `content` with some files' text changed and its manifest recomputed to match. */
export function forgedEntries(content: Content, changes: Record<string, (text: string) => string>): NamedBytes[] {
  const entries = bundleEntries(content).map((entry) => {
    const change = changes[entry.name];
    return change ? { name: entry.name, bytes: encode(change(decode(entry.bytes))) } : entry;
  });
  return withManifestRecomputed(entries);
}

/** Raw deflate data that inflates to `mebibytes` MiB of zeros: one MiB's blocks, repeated. */
export function deflatedZeros(mebibytes: number): Uint8Array {
  // A sync flush ends the blocks on a byte boundary, not final, so copies chain; each copy
  // refers back only within its own MiB. The last block: empty, final, fixed codes.
  const mebibyte = deflateRawSync(new Uint8Array(1024 * 1024), { finishFlush: constants.Z_SYNC_FLUSH });
  return Buffer.concat([...Array.from({ length: mebibytes }, () => mebibyte), Buffer.from([0x03, 0x00])]);
}

/** A .tar.gz-looking bomb: a gzip member of `mebibytes` MiB of zeros, its true size in its trailer (CRC left at 0). */
export function gzipBomb(mebibytes: number): Uint8Array {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE((mebibytes * 1024 * 1024) % 2 ** 32, 4);
  return Buffer.concat([header, deflatedZeros(mebibytes), trailer]);
}

/** A zip entry as the bombs below write it: the deflate data and the sizes it declares. */
export interface BombEntry {
  name: string;
  data: Uint8Array;
  /** The uncompressed size declared in both headers. */
  size: number;
  /** The compressed size declared in the central directory (default: the data's length). */
  compressedSize?: number;
  /**
   * The CRC-32 declared in both headers (default: that of the data inflated). A bomb is refused
   * before its CRC is checked: give it 0, and its data is never inflated here.
   */
  crc?: number;
  /** Bytes of extra field after the name in its local header and in its central one, and of comment (default 0). */
  localExtra?: number;
  centralExtra?: number;
  comment?: number;
}

/** A zip of deflated entries, with the sizes and CRCs it is told to declare. */
export function zipOf(entries: BombEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const crc = entry.crc ?? crc32(inflateRawSync(entry.data));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(entry.localExtra ?? 0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(entry.compressedSize ?? entry.data.length, 20);
    header.writeUInt32LE(entry.size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt16LE(entry.centralExtra ?? 0, 30);
    header.writeUInt16LE(entry.comment ?? 0, 32);
    header.writeUInt32LE(offset, 42);
    // Extra fields and comments of bytes 0xee: any other length read would land on them.
    const filler = (length = 0) => Buffer.alloc(length, 0xee);
    const localPart = [local, name, filler(entry.localExtra), Buffer.from(entry.data)];
    locals.push(...localPart);
    central.push(header, name, filler(entry.centralExtra), filler(entry.comment));
    offset += localPart.reduce((sum, part) => sum + part.length, 0);
  }
  const centralSize = central.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}

/** A tar entry as tar-stream packs it: a file by default, or any type it writes (links, devices, FIFOs). */
export interface TarEntrySpec {
  name: string;
  text?: string | Uint8Array;
  type?: tar.Header['type'];
  linkname?: string;
}

/** A tar of these entries, as tar-stream packs them (dated 1970, so the same bytes on every run). */
export async function tarOf(entries: TarEntrySpec[]): Promise<Uint8Array> {
  const pack = tar.pack();
  for (const { name, text, type, linkname } of entries) {
    const header = { name, mtime: new Date(0), ...(type && { type }), ...(linkname && { linkname }) };
    if (text === undefined) pack.entry(header);
    else pack.entry(header, typeof text === 'string' ? text : Buffer.from(text));
  }
  pack.finalize();
  const chunks: Uint8Array[] = [];
  for await (const chunk of pack as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The build's bundle of `content` as a .tar.gz with these entries after its own (the manifest left as built). */
export async function bundleTarGzWith(content: Content, extra: TarEntrySpec[]): Promise<Uint8Array> {
  const entries: TarEntrySpec[] = bundleEntries(content).map(({ name, bytes }) => ({ name, text: bytes }));
  return gzipSync(await tarOf([...entries, ...extra]));
}

/** A gzip member of `inflated` whose header carries a file name (FNAME) of `nameLength` bytes. */
export function gzipWithFileName(inflated: Uint8Array, nameLength: number): Uint8Array {
  const member = gzipSync(inflated);
  const header = Buffer.from(member.subarray(0, 10));
  header[3] = (header[3] ?? 0) | 0x8;
  return Buffer.concat([header, Buffer.alloc(nameLength, 'n'), Buffer.from([0]), member.subarray(10)]);
}

/**
 * A gzip member with its trailer changed: cut short by `cut` bytes, or its CRC-32 or length
 * (ISIZE) off by one, which `gzip -t` refuses and a reader that skips the trailer does not.
 */
export function gzipTrailerChanged(gzip: Uint8Array, change: 'cut' | 'crc' | 'length', cut = 8): Uint8Array {
  if (change === 'cut') return gzip.subarray(0, gzip.length - cut);
  const changed = Buffer.from(gzip);
  const at = changed.length - (change === 'crc' ? 8 : 4);
  changed.writeUInt32LE((changed.readUInt32LE(at) + 1) % 2 ** 32, at);
  return changed;
}

/**
 * A zip of `entries` with an entry that only its local headers list: a local header and data
 * between two listed entries, which the central directory skips (offsets moved to match).
 */
export function zipWithHiddenEntry(entries: BombEntry[], hidden: BombEntry, at: number): Uint8Array {
  const before = zipOf(entries.slice(0, at));
  const visible = zipOf(entries);
  const lone = zipOf([hidden]);
  const localsBefore = centralOffset(before);
  const hiddenLocal = lone.subarray(0, centralOffset(lone));
  const zip = Buffer.concat([visible.subarray(0, localsBefore), hiddenLocal, visible.subarray(localsBefore)]);
  // Every offset past the hidden entry moves by its length: the later local headers and the directory.
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  const directory = view.getUint32(end + 16, true) + hiddenLocal.length;
  view.setUint32(end + 16, directory, true);
  for (let header = directory; header < end; header += 46 + view.getUint16(header + 28, true)) {
    const offset = view.getUint32(header + 42, true);
    if (offset >= localsBefore) view.setUint32(header + 42, offset + hiddenLocal.length, true);
  }
  return zip;
}

/** Where a zip's central directory starts, by its end record (no comment). */
const centralOffset = (zip: Uint8Array) =>
  new DataView(zip.buffer, zip.byteOffset, zip.byteLength).getUint32(zip.length - 22 + 16, true);

/**
 * Writes the build's bundle of `content` to `path`, with a file added (listed in its manifest)
 * that brings what it inflates to `margin` bytes short of the 256 MiB cap: its first 6 MiB
 * noise, so the archive is large enough for the ratio cap, the rest zeros. Made a MiB at a time
 * (twice: hashed, then packed), so the test's own memory holds none of it. Gives the bytes it
 * inflates to.
 */
export async function writeCapSizedBundle(
  content: Content,
  path: string,
  format: BundleFormat,
  margin: number,
): Promise<number> {
  const entries = bundleEntries(content);
  const inflated = MAX_INFLATED_BYTES - margin;
  // A tar entry is a 512-byte header and its data in 512-byte blocks, and the tar ends with 1 KiB;
  // the manifest is padded for the filler's line. `margin` a multiple of 512, the tar is exact.
  const cost = (size: number) => (format === 'zip' ? size : 512 + Math.ceil(size / 512) * 512);
  const others = entries.reduce(
    (sum, { name, bytes }) => sum + cost(bytes.length + (name === BUNDLE_MANIFEST ? CAP_MANIFEST_LINE : 0)),
    format === 'zip' ? 0 : 1024,
  );
  const size = inflated - others - (format === 'zip' ? 0 : 512);
  const hash = createHash('sha256');
  let crc = 0;
  for (const chunk of capFiller(size)) {
    hash.update(chunk);
    crc = crc32(chunk, crc);
  }
  const withFiller = (bytes: Uint8Array) => {
    const manifest = JSON.parse(decode(bytes)) as Manifest;
    manifest.files[CAP_FILLER] = { sha256: hash.digest('hex'), size };
    const text = JSON.stringify(manifest);
    return encode(text.padEnd(bytes.length + CAP_MANIFEST_LINE, ' '));
  };
  const rest = entries.map((entry) =>
    entry.name === BUNDLE_MANIFEST ? { name: entry.name, bytes: withFiller(entry.bytes) } : entry,
  );
  if (format === 'zip') {
    const deflated: Buffer[] = [];
    const deflater = createDeflateRaw({ level: 1 });
    deflater.on('data', (chunk: Buffer) => deflated.push(chunk));
    for (const chunk of capFiller(size)) if (!deflater.write(chunk)) await once(deflater, 'drain');
    deflater.end();
    await once(deflater, 'end');
    const filler = { name: CAP_FILLER, data: Buffer.concat(deflated), size, crc };
    const zipped = rest.map(({ name, bytes }) => ({ name, data: deflateRawSync(bytes), size: bytes.length }));
    await writeFile(path, zipOf([filler, ...zipped]));
    return inflated;
  }
  const pack = tar.pack();
  const written = pipeline(pack, createGzip({ level: 1 }), createWriteStream(path));
  const filler = pack.entry({ name: CAP_FILLER, size, mtime: new Date(0) });
  for (const chunk of capFiller(size)) if (!filler.write(chunk)) await once(filler, 'drain');
  filler.end(() => {});
  for (const { name, bytes } of rest) pack.entry({ name, mtime: new Date(0) }, Buffer.from(bytes));
  pack.finalize();
  await written;
  return inflated;
}

const CAP_FILLER = 'data/filler.bin';
/** Bytes the manifest is padded by (JSON allows spaces after it) for the filler's line, so its length is known. */
const CAP_MANIFEST_LINE = 200;

/** The filler, a MiB at a time: noise no compressor shrinks (SHA-256 of a counter) for 6 MiB, then zeros. */
function* capFiller(size: number): Generator<Buffer> {
  const noise = 6 * 1024 * 1024;
  for (let at = 0; at < size; at += 1024 * 1024) {
    const chunk = Buffer.alloc(Math.min(1024 * 1024, size - at));
    if (at < noise)
      for (let block = 0; block < chunk.length; block += 32)
        createHash('sha256')
          .update(`${at + block}`)
          .digest()
          .copy(chunk, block);
    yield chunk;
  }
}
