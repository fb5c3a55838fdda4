// The zip format (APPNOTE.TXT) as the .zip bundle uses it: each entry's local header and data,
// then the central directory listing every entry with its sizes and the offset of its local
// header, then its end record (past 65,535 entries, after the ZIP64 end record and its locator).
// The build's writer (src/build/zip.ts) and the client's reader (src/client/archive.ts) take every
// signature, size, version, flag and field offset from here, so they cannot disagree on the layout.

/** Compression methods (4.4.5): the bundle's entries are deflated; a reader also takes stored ones. */
export const STORED = 0;
export const DEFLATED = 8;

/** General purpose flags (4.4.4): bit 0, the entry is encrypted; bit 11, its name is UTF-8. */
export const ENCRYPTED_FLAG = 0x1;
export const UTF8_NAME_FLAG = 0x800;

/** General purpose flag bit 3 (4.4.4): the CRC and sizes follow the data, in a data descriptor (4.3.9). */
export const DATA_DESCRIPTOR_FLAG = 0x8;
/** The signature a data descriptor may start with (4.3.9.3); readers take it with or without. */
export const DATA_DESCRIPTOR_SIGNATURE = 0x08074b50;

/**
 * Hosts of "version made by" (4.4.2) whose external attributes hold a Unix mode in their high 16
 * bits, as `unzip` reads them: 3, Unix, and 19, OS X. The mode's file type (S_IFMT) says what
 * `unzip` makes of the entry: a file, a folder, or a link, device, FIFO or socket.
 */
export const UNIX_HOSTS: readonly number[] = [3, 19];
export const UNIX_FILE_TYPE = 0o170000;
export const UNIX_REGULAR_FILE = 0o100000;
export const UNIX_DIRECTORY = 0o040000;

/** The Unix mode of an entry's external attributes, when the host that made it keeps one there. */
export const unixMode = (versionMadeBy: number, externalAttributes: number): number | undefined =>
  UNIX_HOSTS.includes(versionMadeBy >>> 8) ? externalAttributes >>> 16 : undefined;

/** Version needed to extract (4.4.3): 2.0 for deflate, 4.5 for the ZIP64 records. */
export const VERSION_DEFLATE = 20;
export const VERSION_ZIP64 = 45;

/** The largest values of 16- and 32-bit fields: a count at MAX_16 says the ZIP64 record holds it. */
export const MAX_16 = 0xffff;
export const MAX_32 = 0xffffffff;

/** The fields an entry's local and central headers share, each at its offset from the header's start. */
export interface EntryFieldOffsets {
  versionNeeded: number;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  nameLength: number;
  extraLength: number;
}

/** The local file header (4.3.7), before each entry's data; its name and extra field follow it. */
export const LOCAL_HEADER_SIGNATURE = 0x04034b50;
export const LOCAL_HEADER_SIZE = 30;
export const LOCAL_HEADER = {
  versionNeeded: 4,
  flags: 6,
  method: 8,
  time: 10,
  date: 12,
  crc: 14,
  compressedSize: 18,
  uncompressedSize: 22,
  nameLength: 26,
  extraLength: 28,
} as const satisfies EntryFieldOffsets;

/** A central directory header (4.3.12), one per entry; its name, extra field and comment follow it. */
export const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
export const CENTRAL_HEADER_SIZE = 46;
export const CENTRAL_HEADER = {
  versionMadeBy: 4,
  versionNeeded: 6,
  flags: 8,
  method: 10,
  time: 12,
  date: 14,
  crc: 16,
  compressedSize: 20,
  uncompressedSize: 24,
  nameLength: 28,
  extraLength: 30,
  commentLength: 32,
  externalAttributes: 38,
  localHeaderOffset: 42,
} as const;

/** The end of central directory record (4.3.16), last in the archive but for its comment. */
export const END_RECORD_SIGNATURE = 0x06054b50;
export const END_RECORD_SIZE = 22;
export const END_RECORD = {
  disk: 4,
  centralDirectoryDisk: 6,
  diskEntries: 8,
  entries: 10,
  centralDirectorySize: 12,
  centralDirectoryOffset: 16,
  commentLength: 20,
} as const;
/** The longest comment an end record may carry: how far back a reader looks for the record. */
export const MAX_COMMENT_LENGTH = MAX_16;

/** The ZIP64 end of central directory record (4.3.14), before the end record's locator. */
export const ZIP64_END_RECORD_SIGNATURE = 0x06064b50;
export const ZIP64_END_RECORD_SIZE = 56;
export const ZIP64_END_RECORD = {
  /** The record's size without its first 12 bytes (the signature and this field). */
  recordSize: 4,
  versionMadeBy: 12,
  versionNeeded: 14,
  diskEntries: 24,
  entries: 32,
  centralDirectorySize: 40,
  centralDirectoryOffset: 48,
} as const;

/** The ZIP64 end of central directory locator (4.3.15), between the ZIP64 record and the end record. */
export const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
export const ZIP64_LOCATOR_SIZE = 20;
export const ZIP64_LOCATOR = { endRecordOffset: 8, disks: 16 } as const;

/** Whether the bytes start as a zip does: with a local header's signature. */
export const startsAsZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === LOCAL_HEADER_SIGNATURE;
