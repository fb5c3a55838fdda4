// Reads the files of a .tar.gz or .zip archive into memory, by path, as untrusted input: an
// archive from anywhere may be a zip bomb, so entries and inflated bytes are capped, and the
// caps are checked while inflating, a slice of compressed bytes at a time, so a bomb is never
// inflated far past them. Each file goes straight into a buffer of its own size, so reading
// costs the files and no copy of the archive's contents. What is read is what `tar -x` and
// `unzip` would make: anything they would make otherwise (links, devices, entries hidden from
// one reader, damaged bytes) is refused. Uses fflate, which runs in browsers as well as in Node.
// The caps are stated in docs/limits.md.
import { Inflate } from 'fflate';
import { archiveFormat, MAX_BUNDLE_ENTRIES } from '../contract/bundle-layout.ts';
import {
  CENTRAL_HEADER,
  CENTRAL_HEADER_SIGNATURE,
  CENTRAL_HEADER_SIZE,
  DATA_DESCRIPTOR_FLAG,
  DATA_DESCRIPTOR_SIGNATURE,
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
  UNIX_DIRECTORY,
  UNIX_FILE_TYPE,
  UNIX_REGULAR_FILE,
  UTF8_NAME_FLAG,
  unixMode,
} from '../contract/zip-format.ts';
import { crc32, crcHex } from './crc32.ts';
import { BundleError } from './errors.ts';
import { gunzip, INFLATE_SLICE } from './gzip.ts';
import { TarReader } from './tar.ts';

export type ArchiveFiles = Map<string, Uint8Array>;

/** Checks an entry by its path and size before its bytes are read: throws to refuse it. */
export type EntryCheck = (path: string, size: number) => void;

/**
 * The file that says which others an archive may hold (a bundle's manifest), read as early as
 * the format allows: a zip's first, its directory naming every entry before any is inflated; a
 * tar's in its place, the entries before it checked once it is read. `open` gets its bytes, or
 * undefined when the archive lacks it, and gives the check of every other file.
 */
export interface ArchiveGate {
  key: string;
  open(bytes: Uint8Array | undefined): EntryCheck;
}

const MiB = 1024 * 1024;

/** Most entries an archive may hold (files, folders, links): the contract's, which the build keeps to. */
const MAX_ENTRIES = MAX_BUNDLE_ENTRIES;

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

/** The most an archive of `archiveSize` bytes may inflate to. */
export const inflationLimit = (archiveSize: number): number =>
  Math.min(MAX_INFLATED_BYTES, Math.max(INFLATION_ALLOWANCE, MAX_INFLATION_RATIO * archiveSize));

/** The archive's files by path; with a gate, each checked by it before its bytes are read. */
export async function readArchive(bytes: Uint8Array, gate?: ArchiveGate): Promise<ArchiveFiles> {
  const format = archiveFormat(bytes);
  const files = new FileSet(gate);
  try {
    if (format === 'zip') readZip(bytes, inflationLimit(bytes.length), files);
    else if (format === 'tar.gz') readTarGz(bytes, inflationLimit(bytes.length), files);
    else throw new BundleError('Not a bundle: the file is neither a .tar.gz nor a .zip archive.');
  } catch (error) {
    if (error instanceof BundleError) throw error;
    throw damaged((error as Error).message);
  }
  return files.finish();
}

const damaged = (reason: string, file?: string) => new BundleError(`The archive is damaged: ${reason}`, file);
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
 * The files read so far, by path (a leading ./ dropped): a path held twice refused, every file
 * checked by the gate before its bytes are read, those before the gate's key once it is read.
 */
/** A file's path: its name without a leading ./ (one inside a path stays). */
const pathOf = (name: string) => name.replace(/^\.\//, '');

class FileSet {
  readonly #files: ArchiveFiles = new Map();
  readonly #paths = new Set<string>();
  readonly #gate: ArchiveGate | undefined;
  #check: EntryCheck | undefined;
  #waiting: [string, number][] = [];

  constructor(gate: ArchiveGate | undefined) {
    this.#gate = gate;
  }

  /** A file's name and size, before its bytes are read. */
  admit(name: string, size: number): void {
    const path = pathOf(name);
    // Two entries of one path: which one a reader keeps is up to the reader.
    if (this.#paths.has(path)) throw new BundleError(`The archive holds ${path} twice.`, path);
    this.#paths.add(path);
    if (this.#gate && path !== this.#gate.key) {
      if (this.#check) this.#check(path, size);
      else this.#waiting.push([path, size]);
    }
  }

  /** A file's name and bytes, once read. */
  add(name: string, bytes: Uint8Array): void {
    const path = pathOf(name);
    this.#files.set(path, bytes);
    if (path === this.#gate?.key) this.open(bytes);
  }

  /** Whether `name` is the gate's key. */
  isKey(name: string): boolean {
    return pathOf(name) === this.#gate?.key;
  }

  /** Opens the gate with its key's bytes (undefined: the archive lacks it), checking the files before it. */
  open(bytes: Uint8Array | undefined): void {
    if (!this.#gate || this.#check) return;
    const check = this.#gate.open(bytes);
    this.#check = check;
    for (const [path, size] of this.#waiting) check(path, size);
    this.#waiting = [];
  }

  finish(): ArchiveFiles {
    this.open(undefined);
    return this.#files;
  }
}

/**
 * Slices of compressed bytes into an inflater, the last one marked final. No bytes, no slice:
 * fflate inflates an empty final push to nothing, as it does no push.
 */
function pushSlices(inflater: { push(chunk: Uint8Array, final: boolean): void }, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; at += INFLATE_SLICE)
    inflater.push(bytes.subarray(at, at + INFLATE_SLICE), at + INFLATE_SLICE >= bytes.length);
}

/** A .tar.gz, its tar read as it inflates, refused as soon as it inflates or declares past `limit`. */
function readTarGz(bytes: Uint8Array, limit: number, files: FileSet): void {
  let entries = 0;
  const tar = new TarReader({
    entry({ name, type, size, offset }) {
      if (++entries > MAX_ENTRIES) throw tooManyEntries();
      if (offset + size > limit) throw inflatesTooMuch(`declares ${name} of ${figure(size)} bytes, past`, bytes.length);
      if (type === 'file') files.admit(name, size);
    },
    file: (name, data) => files.add(name, data),
  });
  let inflated = 0;
  gunzip(bytes, (chunk) => {
    inflated += chunk.length;
    if (inflated > limit) throw inflatesTooMuch('inflates past', bytes.length);
    tar.write(chunk);
  });
  tar.end();
}

// The zip format (src/contract/zip-format.ts): each entry's local header and data (and a data
// descriptor after it when its flags say so), then the central directory listing every entry
// with its sizes and the offset of its local header, then its end record.
interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  size: number;
  /** A folder: a name ending in "/" and no bytes. */
  folder: boolean;
  /** Where its local header starts, its data starts and its data ends, in the archive. */
  header: number;
  start: number;
  end: number;
}

/**
 * A zip's files, read from its central directory: at most MAX_ENTRIES entries, none sharing
 * bytes with another (overlapping entries make a small zip inflate a thousand times over) and
 * no bytes between them that the directory does not list, the sizes they declare within
 * `limit`; the gate's key read first and every other file checked before any is inflated; each
 * refused as soon as it inflates past its own size, and checked against its CRC-32.
 */
function readZip(bytes: Uint8Array, limit: number, files: FileSet): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { entries, offset } = centralDirectory(view, bytes);
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
  for (const entry of entries) checkLocalFields(view, entry);
  checkNothingUnlisted(view, bytes, byOffset, offset);
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (declared > limit) throw inflatesTooMuch(`declares ${figure(declared)} bytes of files, more than`, bytes.length);
  const fileEntries = entries.filter((entry) => !entry.folder);
  for (const entry of fileEntries) files.admit(entry.name, entry.size);
  const key = fileEntries.find((entry) => files.isKey(entry.name));
  if (key) files.add(key.name, inflateEntry(bytes.subarray(key.start, key.end), key));
  else files.open(undefined);
  for (const entry of fileEntries)
    if (entry !== key) files.add(entry.name, inflateEntry(bytes.subarray(entry.start, entry.end), entry));
}

/** Without a data descriptor the local header gives the CRC and sizes too, which readers of local headers use. */
function checkLocalFields(view: DataView, { name, flags, header, crc, start, end, size }: ZipEntry): void {
  if (
    !(flags & DATA_DESCRIPTOR_FLAG) &&
    (view.getUint32(header + LOCAL_HEADER.crc, true) !== crc ||
      view.getUint32(header + LOCAL_HEADER.compressedSize, true) !== end - start ||
      view.getUint32(header + LOCAL_HEADER.uncompressedSize, true) !== size)
  )
    throw damaged(`the local header of ${name} gives another CRC-32 or size than its central directory.`, name);
}

/**
 * The local headers, data and data descriptors of the entries, in the order they lie, must
 * fill the archive up to its central directory: bytes the directory does not list are what a
 * reader walking the local headers would take for another entry, which `unzip` never shows.
 */
function checkNothingUnlisted(view: DataView, bytes: Uint8Array, byOffset: ZipEntry[], directory: number): void {
  let at = 0;
  for (const entry of [...byOffset, undefined]) {
    const next = entry?.header ?? directory;
    if (next > at) throw unlisted(view, bytes, at, next);
    if (next < at)
      throw damaged(`the data descriptor of an entry runs into ${entry?.name ?? 'its central directory'}.`);
    if (entry) at = entry.end + descriptorLength(view, entry, directory);
  }
}

function unlisted(view: DataView, bytes: Uint8Array, at: number, next: number): BundleError {
  if (at + LOCAL_HEADER_SIZE <= next && view.getUint32(at, true) === LOCAL_HEADER_SIGNATURE) {
    const nameEnd = Math.min(next, at + LOCAL_HEADER_SIZE + view.getUint16(at + LOCAL_HEADER.nameLength, true));
    const name = decodeName(
      bytes.subarray(at + LOCAL_HEADER_SIZE, nameEnd),
      view.getUint16(at + LOCAL_HEADER.flags, true),
    );
    return new BundleError(
      `The archive holds ${name} in a local header that its central directory does not list: ` +
        'unzip would not show it, a reader of the local headers would.',
      name,
    );
  }
  return new BundleError(
    `The archive holds ${figure(next - at)} bytes at byte ${figure(at)} that its central directory does not list.`,
  );
}

/** The length of the data descriptor after an entry's data (none unless its flags say so), checked. */
function descriptorLength(view: DataView, entry: ZipEntry, directory: number): number {
  if (!(entry.flags & DATA_DESCRIPTOR_FLAG)) return 0;
  // The descriptor's signature is optional (4.3.9.3): CRC-32, then both sizes, 4 bytes each.
  const signed = entry.end + 4 <= directory && view.getUint32(entry.end, true) === DATA_DESCRIPTOR_SIGNATURE;
  const fields = entry.end + (signed ? 4 : 0);
  if (fields + 12 > directory) throw damaged(`the data descriptor of ${entry.name} is missing.`, entry.name);
  if (
    view.getUint32(fields, true) !== entry.crc ||
    view.getUint32(fields + 4, true) !== entry.end - entry.start ||
    view.getUint32(fields + 8, true) !== entry.size
  )
    throw damaged(`the data descriptor of ${entry.name} differs from its central directory entry.`, entry.name);
  return fields + 12 - entry.end;
}

function centralDirectory(view: DataView, bytes: Uint8Array): { entries: ZipEntry[]; offset: number } {
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
      crc: view.getUint32(at + CENTRAL_HEADER.crc, true),
      compressed: view.getUint32(at + CENTRAL_HEADER.compressedSize, true),
      size: view.getUint32(at + CENTRAL_HEADER.uncompressedSize, true),
      header: view.getUint32(at + CENTRAL_HEADER.localHeaderOffset, true),
      mode: unixMode(
        view.getUint16(at + CENTRAL_HEADER.versionMadeBy, true),
        view.getUint32(at + CENTRAL_HEADER.externalAttributes, true),
      ),
      limit: offset,
    });
    entries.push(entry);
    at = next;
  }
  return { entries, offset };
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

/** What a Unix file type other than a file or folder is, as `unzip` would make it. */
const UNIX_TYPES = new Map<number, string>([
  [0o120000, 'a symbolic link'],
  [0o140000, 'a socket'],
  [0o060000, 'a block device'],
  [0o020000, 'a character device'],
  [0o010000, 'a FIFO'],
]);

/** An entry of the central directory, checked against its local header. */
function localEntry(
  view: DataView,
  bytes: Uint8Array,
  listed: {
    name: string;
    flags: number;
    method: number;
    crc: number;
    compressed: number;
    size: number;
    header: number;
    /** The Unix mode its external attributes give, when made on Unix. */
    mode: number | undefined;
    limit: number;
  },
): ZipEntry {
  const { name, flags, method, crc, compressed, size, header, mode, limit } = listed;
  if (flags & ENCRYPTED_FLAG) throw new BundleError(`${name} is encrypted: a bundle never is.`, name);
  if (method !== STORED && method !== DEFLATED)
    throw new BundleError(`${name} uses compression method ${method}: a bundle uses deflate only.`, name);
  const type = (mode ?? 0) & UNIX_FILE_TYPE;
  const other = UNIX_TYPES.get(type);
  if (other !== undefined)
    throw new BundleError(`${name} is ${other} (its Unix mode): a bundle holds only files and folders.`, name);
  const folderName = name.endsWith('/');
  if (folderName && size > 0)
    throw new BundleError(
      `${name} is a file named as a folder (its name ends in "/"): unzip makes a folder of it.`,
      name,
    );
  if (type === UNIX_DIRECTORY && !folderName)
    throw new BundleError(`${name} is a folder (its Unix mode) not named as one: a bundle's folders end in "/".`, name);
  if (type === UNIX_REGULAR_FILE && folderName)
    throw new BundleError(`${name} is a file (its Unix mode) named as a folder: unzip makes a folder of it.`, name);
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
  return { name, flags, method, crc, size, folder: folderName, header, start, end };
}

function decodeName(bytes: Uint8Array, flags: number): string {
  if (flags & UTF8_NAME_FLAG) return new TextDecoder().decode(bytes);
  // Names without the UTF-8 flag are read a byte a character, as fflate reads them.
  return Array.from(bytes, (byte) => String.fromCharCode(byte)).join('');
}

/** An entry's bytes, refused as soon as they inflate past the size the archive declares, checked against its CRC-32. */
function inflateEntry(data: Uint8Array, entry: ZipEntry): Uint8Array {
  // A copy, never a view of the archive (a Buffer's slice() is one): what was checked stays as read.
  const bytes = entry.method === STORED ? new Uint8Array(data) : inflated(data, entry);
  const crc = crc32(bytes);
  if (crc !== entry.crc)
    throw damaged(
      `${entry.name} fails its CRC-32 check (the archive gives ${crcHex(entry.crc)}; its bytes have ${crcHex(crc)}).`,
      entry.name,
    );
  return bytes;
}

function inflated(data: Uint8Array, entry: ZipEntry): Uint8Array {
  const bytes = new Uint8Array(entry.size);
  let length = 0;
  pushSlices(
    new Inflate((chunk) => {
      if (length + chunk.length > entry.size)
        throw new BundleError(
          `${entry.name} inflates past the ${figure(entry.size)} bytes the archive declares for it.`,
          entry.name,
        );
      bytes.set(chunk, length);
      length += chunk.length;
    }),
    data,
  );
  if (length !== entry.size)
    throw damaged(`${entry.name} inflates to ${figure(length)} bytes, not the ${figure(entry.size)} it declares.`);
  return bytes;
}
