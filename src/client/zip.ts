// Reads a .zip bundle (the format: src/contract/zip-format.ts) as untrusted input, its central
// directory first: what `unzip` would make, or a refusal naming why not (archive.ts reads a
// .tar.gz and chooses between the two).
import { Inflate } from 'fflate';
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
import {
  damaged,
  type FileSet,
  figure,
  inflatesTooMuch,
  MAX_ENTRIES,
  pushSlices,
  tooManyEntries,
} from './archive-files.ts';
import { crc32, crcHex } from './crc32.ts';
import { BundleError } from './errors.ts';

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
export function readZip(bytes: Uint8Array, limit: number, files: FileSet): void {
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
