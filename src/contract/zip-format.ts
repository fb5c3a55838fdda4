// The zip format (APPNOTE.TXT) as the .zip bundle uses it: each entry's local header and data,
// then the central directory listing every entry with its sizes and the offset of its local
// header, then its end record.
// The client's reader (src/client/zip.ts) takes every signature, size, flag and field offset
// from here; the build writes its zips with fflate, and the tests read them back through the reader.

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
} as const;

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
export const MAX_COMMENT_LENGTH = 0xffff;

/** Whether the bytes start as a zip does: with a local header's signature. */
export const startsAsZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === LOCAL_HEADER_SIGNATURE;
