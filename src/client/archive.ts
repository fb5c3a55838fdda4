// Reads the files of a .tar.gz or .zip archive into memory, by path, as untrusted input: an
// archive from anywhere may be a zip bomb, so entries and inflated bytes are capped, and the
// caps are checked while inflating, a slice of compressed bytes at a time, so a bomb is never
// inflated far past them. Uses fflate and tar-stream, both of which run in browsers as well as
// in Node. The caps are stated in docs/limits.md.
import { Gunzip, Inflate } from 'fflate';
import tar from 'tar-stream';
import { archiveFormat } from '../contract/bundle-layout.ts';
import {
  CENTRAL_HEADER,
  CENTRAL_HEADER_SIGNATURE,
  CENTRAL_HEADER_SIZE,
  DEFLATED,
  ENCRYPTED_FLAG,
  END_RECORD,
  END_RECORD_SIGNATURE,
  END_RECORD_SIZE,
  LOCAL_HEADER,
  LOCAL_HEADER_SIGNATURE,
  LOCAL_HEADER_SIZE,
  MAX_COMMENT_LENGTH,
  STORED,
  UTF8_NAME_FLAG,
} from '../contract/zip-format.ts';
import { BundleError } from './errors.ts';

export type ArchiveFiles = Map<string, Uint8Array>;

const MiB = 1024 * 1024;

/**
 * Most entries an archive may hold (files, folders, links). The build's bundle holds 25 files
 * (31 entries in the tar, with its folders) and gains one file per data release: 4,096 leaves
 * room for thousands of releases, and keeps an archive of millions of empty entries out.
 */
export const MAX_ENTRIES = 4096;

/**
 * Most bytes an archive may inflate to, whatever its size. The build's bundle inflates to 1.2 MB
 * (106 trees); synthetic content of 2,000 trees to 26 MB, so some 130 MB at 10,000 trees, the
 * largest content the benchmarks build. The client holds every file in memory: past 256 MiB a
 * bundle is no longer one to open whole.
 */
export const MAX_INFLATED_BYTES = 256 * MiB;

/**
 * Most times its own size an archive may inflate to. The build's bundles inflate 6.3 times (the
 * .zip) and 6.4 times (the .tar.gz), and 7 times at 2,000 trees: JSON, CSV and SQLite pages
 * compress alike at any size. 50 leaves room for far more regular files; a zip bomb inflates a
 * thousand times (deflate's most) to millions of times (overlapping entries).
 */
export const MAX_INFLATION_RATIO = 50;

/**
 * What any archive may inflate to, whatever its ratio: a small archive of very regular files
 * (a test's, a bundle of little content) may pass the ratio. 13 times today's bundle.
 */
export const INFLATION_ALLOWANCE = 16 * MiB;

/**
 * Compressed bytes handed to the inflater at a time. Deflate expands at most 1,032 times, so a
 * slice inflates to at most some 4 MiB before the caps are checked again.
 */
const INFLATE_SLICE = 4096;

/** The most an archive of `archiveSize` bytes may inflate to. */
export const inflationLimit = (archiveSize: number): number =>
  Math.min(MAX_INFLATED_BYTES, Math.max(INFLATION_ALLOWANCE, MAX_INFLATION_RATIO * archiveSize));

export async function readArchive(bytes: Uint8Array): Promise<ArchiveFiles> {
  const format = archiveFormat(bytes);
  try {
    if (format === 'zip') return filesOf(readZip(bytes, inflationLimit(bytes.length)));
    if (format === 'tar.gz') return filesOf(await readTar(gunzip(bytes, inflationLimit(bytes.length))));
  } catch (error) {
    if (error instanceof BundleError) throw error;
    throw damaged((error as Error).message);
  }
  throw new BundleError('Not a bundle: the file is neither a .tar.gz nor a .zip archive.');
}

const damaged = (reason: string) => new BundleError(`The archive is damaged: ${reason}`);
const figure = (count: number) => count.toLocaleString('en-US');

function tooManyEntries(count?: number): BundleError {
  const held = count === undefined ? `more than ${figure(MAX_ENTRIES)} entries` : `${figure(count)} entries`;
  return new BundleError(`The archive holds ${held}; a bundle may hold ${figure(MAX_ENTRIES)} at most.`);
}

function inflatesTooMuch(what: string, archiveSize: number): BundleError {
  return new BundleError(
    `The archive ${what} ${figure(inflationLimit(archiveSize))} bytes, the most an archive of ` +
      `${figure(archiveSize)} bytes may inflate to (${MAX_INFLATION_RATIO} times its size, at least ` +
      `${INFLATION_ALLOWANCE / MiB} MiB, at most ${MAX_INFLATED_BYTES / MiB} MiB): refused as a zip bomb.`,
  );
}

/**
 * Slices of compressed bytes into an inflater, the last one marked final. No bytes, no slice:
 * fflate inflates an empty final push to nothing, as it does no push.
 */
function pushSlices(inflater: { push(chunk: Uint8Array, final: boolean): void }, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; at += INFLATE_SLICE)
    inflater.push(bytes.subarray(at, at + INFLATE_SLICE), at + INFLATE_SLICE >= bytes.length);
}

/** The tar inside a .tar.gz, refused as soon as it inflates past `limit`. */
function gunzip(bytes: Uint8Array, limit: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let inflated = 0;
  pushSlices(
    new Gunzip((chunk) => {
      inflated += chunk.length;
      if (inflated > limit) throw inflatesTooMuch('inflates past', bytes.length);
      chunks.push(chunk);
    }),
    bytes,
  );
  return chunks;
}

async function readTar(chunks: Uint8Array[]): Promise<[string, Uint8Array][]> {
  const extract = tar.extract();
  const files: [string, Uint8Array][] = [];
  let entries = 0;
  const reading = (async () => {
    for await (const entry of extract) {
      if (++entries > MAX_ENTRIES) throw tooManyEntries();
      const parts: Uint8Array[] = [];
      for await (const chunk of entry as AsyncIterable<Uint8Array>) parts.push(chunk);
      if (entry.header.type === 'file') files.push([entry.header.name, concat(parts)]);
    }
  })();
  const last = chunks.pop();
  for (const chunk of chunks) extract.write(chunk);
  extract.end(last);
  await reading;
  return files;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** The files by path: folders left out, a leading ./ dropped, a path held twice refused. */
function filesOf(entries: [string, Uint8Array][]): ArchiveFiles {
  const files: ArchiveFiles = new Map();
  for (const [name, bytes] of entries) {
    if (name.endsWith('/')) continue;
    const path = name.replace(/^\.\//, '');
    // Two entries of one path: which one a reader keeps is up to the reader.
    if (files.has(path)) throw new BundleError(`The archive holds ${path} twice.`, path);
    files.set(path, bytes);
  }
  return files;
}

// The zip format (src/contract/zip-format.ts): each entry's local header and data, then the
// central directory listing every entry with its sizes and the offset of its local header, then
// its end record.
interface ZipEntry {
  name: string;
  method: number;
  size: number;
  /** Where its local header starts, its data starts and its data ends, in the archive. */
  header: number;
  start: number;
  end: number;
}

/**
 * A zip's files, read from its central directory: at most MAX_ENTRIES entries, none sharing
 * bytes with another (overlapping entries make a small zip inflate a thousand times over),
 * the sizes they declare within `limit`, each refused as soon as it inflates past its own.
 */
function readZip(bytes: Uint8Array, limit: number): [string, Uint8Array][] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(view, bytes);
  const byOffset = [...entries].sort((a, b) => a.header - b.header);
  byOffset.forEach((entry, index) => {
    const next = byOffset[index + 1];
    if (next && entry.end > next.header)
      throw new BundleError(
        `${entry.name} overlaps ${next.name} in the archive: ` +
          "entries that share bytes are refused (a zip bomb's trick).",
        entry.name,
      );
  });
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (declared > limit) throw inflatesTooMuch(`declares ${figure(declared)} bytes of files, more than`, bytes.length);
  return entries.map((entry) => [entry.name, inflateEntry(bytes.subarray(entry.start, entry.end), entry)]);
}

function centralDirectory(view: DataView, bytes: Uint8Array): ZipEntry[] {
  const end = endRecord(view);
  const count = view.getUint16(end + END_RECORD.entries, true);
  const size = view.getUint32(end + END_RECORD.centralDirectorySize, true);
  const offset = view.getUint32(end + END_RECORD.centralDirectoryOffset, true);
  if (view.getUint16(end + END_RECORD.disk, true) !== 0 || view.getUint16(end + END_RECORD.diskEntries, true) !== count)
    throw damaged('it spans several disks.');
  if (count > MAX_ENTRIES) throw tooManyEntries(count);
  const directoryEnd = offset + size;
  if (directoryEnd > end) throw damaged('its central directory lies past its end record.');
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let index = 0; index < count; index++) {
    // The directory is what the end record says: an entry past it is not read, whatever lies there.
    if (at + CENTRAL_HEADER_SIZE > directoryEnd || view.getUint32(at, true) !== CENTRAL_HEADER_SIGNATURE)
      throw damaged(`entry ${index + 1} of its central directory is missing.`);
    const flags = view.getUint16(at + CENTRAL_HEADER.flags, true);
    const nameLength = view.getUint16(at + CENTRAL_HEADER.nameLength, true);
    const next =
      at +
      CENTRAL_HEADER_SIZE +
      nameLength +
      view.getUint16(at + CENTRAL_HEADER.extraLength, true) +
      view.getUint16(at + CENTRAL_HEADER.commentLength, true);
    if (next > directoryEnd) throw damaged(`entry ${index + 1} of its central directory runs past its end.`);
    const name = decodeName(bytes.subarray(at + CENTRAL_HEADER_SIZE, at + CENTRAL_HEADER_SIZE + nameLength), flags);
    const entry = localEntry(view, bytes, {
      name,
      flags,
      method: view.getUint16(at + CENTRAL_HEADER.method, true),
      compressed: view.getUint32(at + CENTRAL_HEADER.compressedSize, true),
      size: view.getUint32(at + CENTRAL_HEADER.uncompressedSize, true),
      header: view.getUint32(at + CENTRAL_HEADER.localHeaderOffset, true),
      limit: offset,
    });
    entries.push(entry);
    at = next;
  }
  return entries;
}

/** The end of central directory record: the last 22 bytes, or further back past a comment. */
function endRecord(view: DataView): number {
  const last = view.byteLength - END_RECORD_SIZE;
  for (let at = last; at >= Math.max(0, last - MAX_COMMENT_LENGTH); at--) {
    if (
      view.getUint32(at, true) === END_RECORD_SIGNATURE &&
      at + END_RECORD_SIZE + view.getUint16(at + END_RECORD.commentLength, true) === view.byteLength
    )
      return at;
  }
  throw damaged('it has no end of central directory record.');
}

/** An entry of the central directory, checked against its local header. */
function localEntry(
  view: DataView,
  bytes: Uint8Array,
  listed: {
    name: string;
    flags: number;
    method: number;
    compressed: number;
    size: number;
    header: number;
    limit: number;
  },
): ZipEntry {
  const { name, flags, method, compressed, size, header, limit } = listed;
  if (flags & ENCRYPTED_FLAG) throw new BundleError(`${name} is encrypted: a bundle never is.`, name);
  if (method !== STORED && method !== DEFLATED)
    throw new BundleError(`${name} uses compression method ${method}: a bundle uses deflate only.`, name);
  if (header + LOCAL_HEADER_SIZE > limit || view.getUint32(header, true) !== LOCAL_HEADER_SIGNATURE)
    throw damaged(`the local header of ${name} is missing.`);
  const nameLength = view.getUint16(header + LOCAL_HEADER.nameLength, true);
  const start = header + LOCAL_HEADER_SIZE + nameLength + view.getUint16(header + LOCAL_HEADER.extraLength, true);
  const end = start + compressed;
  if (end > limit) throw damaged(`the data of ${name} runs into its central directory.`);
  // Another name in the local header: readers that walk the local headers would see another file.
  if (decodeName(bytes.subarray(header + LOCAL_HEADER_SIZE, header + LOCAL_HEADER_SIZE + nameLength), flags) !== name)
    throw damaged(`the local header of ${name} names another file.`);
  if (method === STORED && compressed !== size) throw damaged(`${name} is stored with two sizes.`);
  return { name, method, size, header, start, end };
}

function decodeName(bytes: Uint8Array, flags: number): string {
  if (flags & UTF8_NAME_FLAG) return new TextDecoder().decode(bytes);
  // Names without the UTF-8 flag are read a byte a character, as fflate reads them.
  return Array.from(bytes, (byte) => String.fromCharCode(byte)).join('');
}

/** An entry's bytes, refused as soon as they inflate past the size the archive declares. */
function inflateEntry(data: Uint8Array, entry: ZipEntry): Uint8Array {
  // A copy, never a view of the archive (a Buffer's slice() is one): what was checked stays as read.
  if (entry.method === STORED) return new Uint8Array(data);
  const bytes = new Uint8Array(entry.size);
  let inflated = 0;
  pushSlices(
    new Inflate((chunk) => {
      if (inflated + chunk.length > entry.size)
        throw new BundleError(
          `${entry.name} inflates past the ${figure(entry.size)} bytes the archive declares for it.`,
          entry.name,
        );
      bytes.set(chunk, inflated);
      inflated += chunk.length;
    }),
    data,
  );
  if (inflated !== entry.size)
    throw damaged(`${entry.name} inflates to ${figure(inflated)} bytes, not the ${figure(entry.size)} it declares.`);
  return bytes;
}
