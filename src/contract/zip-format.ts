// The zip format (APPNOTE.TXT) as the client's reader (src/client/archive.ts) reads a bundle:
// each entry's local header and data, then the central directory listing every entry with its
// sizes and the offset of its local header, then its end record. The build writes bundles with
// fflate (src/build/zip.ts); the reader takes every signature, size, flag and field offset from here.

/** Compression methods (4.4.5): the bundle's entries are deflated; a reader also takes stored ones. */
export const STORED = 0;
export const DEFLATED = 8;

/** General purpose flags (4.4.4): bit 0, the entry is encrypted; bit 11, its name is UTF-8. */
export const ENCRYPTED_FLAG = 0x1;
export const UTF8_NAME_FLAG = 0x800;

/** The local file header (4.3.7), before each entry's data; its name and extra field follow it. */
export const LOCAL_HEADER_SIGNATURE = 0x04034b50;
export const LOCAL_HEADER_SIZE = 30;
export const LOCAL_HEADER = { nameLength: 26, extraLength: 28 } as const;

/** A central directory header (4.3.12), one per entry; its name, extra field and comment follow it. */
export const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
export const CENTRAL_HEADER_SIZE = 46;
export const CENTRAL_HEADER = {
  flags: 8,
  method: 10,
  compressedSize: 20,
  uncompressedSize: 24,
  nameLength: 28,
  extraLength: 30,
  commentLength: 32,
  localHeaderOffset: 42,
} as const;

/** The end of central directory record (4.3.16), last in the archive but for its comment. */
export const END_RECORD_SIGNATURE = 0x06054b50;
export const END_RECORD_SIZE = 22;
export const END_RECORD = {
  disk: 4,
  diskEntries: 8,
  entries: 10,
  centralDirectorySize: 12,
  centralDirectoryOffset: 16,
  commentLength: 20,
} as const;
/** The longest comment an end record may carry (a 16-bit length): how far back a reader looks for the record. */
export const MAX_COMMENT_LENGTH = 0xffff;

/** Whether the bytes start as a zip does: with a local header's signature. */
export const startsAsZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === LOCAL_HEADER_SIGNATURE;
