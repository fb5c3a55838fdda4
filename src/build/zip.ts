// A deterministic .zip writer over Node's own zlib. fflate's zipSync allocated some 170 KB of
// typed arrays per file; with 200,000 files beside a large heap, the garbage collections
// those allocations set off made the archive cost grow with the square of the records.
// zlib's sync calls free their memory at once. Past 65,535 files the archive carries the
// ZIP64 end records (APPNOTE.TXT 4.3.14-4.3.16), which readers such as fflate's unzipSync follow.
import { crc32, deflateRawSync } from 'node:zlib';
import {
  CENTRAL_HEADER,
  CENTRAL_HEADER_SIGNATURE,
  CENTRAL_HEADER_SIZE,
  DEFLATED,
  END_RECORD,
  END_RECORD_SIGNATURE,
  END_RECORD_SIZE,
  type EntryFieldOffsets,
  LOCAL_HEADER,
  LOCAL_HEADER_SIGNATURE,
  LOCAL_HEADER_SIZE,
  MAX_16,
  MAX_32,
  UTF8_NAME_FLAG,
  VERSION_DEFLATE,
  VERSION_ZIP64,
  ZIP64_END_RECORD,
  ZIP64_END_RECORD_SIGNATURE,
  ZIP64_END_RECORD_SIZE,
  ZIP64_LOCATOR,
  ZIP64_LOCATOR_SIGNATURE,
  ZIP64_LOCATOR_SIZE,
} from '../contract/zip-format.ts';

export interface ZipFile {
  name: string;
  bytes: Uint8Array;
}

export interface ZipOptions {
  /** The operating system byte of "version made by" (3: Unix). */
  os: number;
  /** External attributes: the Unix mode in the high 16 bits. */
  attrs: number;
  /** MS-DOS date and time of every entry. */
  dosDate: number;
  dosTime: number;
}

/** The MS-DOS date and time fields of a calendar time (as written, with no time zone). */
export function dosDateTime(year: number, month: number, day: number): { dosDate: number; dosTime: number } {
  return { dosDate: ((year - 1980) << 9) | (month << 5) | day, dosTime: 0 };
}

/** The archive of `files`, in the given order, each deflated at level 9. */
export function writeZip(files: readonly ZipFile[], options: ZipOptions): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const data = deflateRawSync(file.bytes, { level: 9 });
    const fields = {
      flags: name.length === file.name.length ? 0 : UTF8_NAME_FLAG,
      crc: crc32(file.bytes),
      compressedSize: data.length,
      size: file.bytes.length,
    };
    if (offset > MAX_32 || data.length > MAX_32) throw new Error(`${file.name}: the zip grew past 4 GiB`);
    const local = Buffer.alloc(LOCAL_HEADER_SIZE);
    local.writeUInt32LE(LOCAL_HEADER_SIGNATURE, 0);
    writeCommon(local, LOCAL_HEADER, name.length, fields, options);
    parts.push(local, name, data);

    const header = Buffer.alloc(CENTRAL_HEADER_SIZE);
    header.writeUInt32LE(CENTRAL_HEADER_SIGNATURE, 0);
    header.writeUInt16LE((options.os << 8) | VERSION_DEFLATE, CENTRAL_HEADER.versionMadeBy);
    writeCommon(header, CENTRAL_HEADER, name.length, fields, options);
    header.writeUInt32LE(options.attrs >>> 0, CENTRAL_HEADER.externalAttributes);
    header.writeUInt32LE(offset, CENTRAL_HEADER.localHeaderOffset);
    central.push(header, name);
    offset += local.length + name.length + data.length;
  }
  const centralSize = central.reduce((sum, part) => sum + part.length, 0);
  if (offset + centralSize > MAX_32) throw new Error('the zip grew past 4 GiB');
  return Buffer.concat([...parts, ...central, ...endRecords(files.length, centralSize, offset, options)]);
}

/** Version needed, flags, method, time, date, CRC, sizes and name length: the fields both headers hold. */
function writeCommon(
  buffer: Buffer,
  at: EntryFieldOffsets,
  nameLength: number,
  fields: { flags: number; crc: number; compressedSize: number; size: number },
  options: ZipOptions,
): void {
  buffer.writeUInt16LE(VERSION_DEFLATE, at.versionNeeded);
  buffer.writeUInt16LE(fields.flags, at.flags);
  buffer.writeUInt16LE(DEFLATED, at.method);
  buffer.writeUInt16LE(options.dosTime, at.time);
  buffer.writeUInt16LE(options.dosDate, at.date);
  buffer.writeUInt32LE(fields.crc, at.crc);
  buffer.writeUInt32LE(fields.compressedSize, at.compressedSize);
  buffer.writeUInt32LE(fields.size, at.uncompressedSize);
  buffer.writeUInt16LE(nameLength, at.nameLength);
}

/** The end of central directory record, preceded by the ZIP64 record and locator when the count needs them. */
function endRecords(count: number, centralSize: number, centralOffset: number, options: ZipOptions): Buffer[] {
  const end = Buffer.alloc(END_RECORD_SIZE);
  end.writeUInt32LE(END_RECORD_SIGNATURE, 0);
  const zip64 = count >= MAX_16;
  end.writeUInt16LE(zip64 ? MAX_16 : count, END_RECORD.diskEntries);
  end.writeUInt16LE(zip64 ? MAX_16 : count, END_RECORD.entries);
  end.writeUInt32LE(centralSize, END_RECORD.centralDirectorySize);
  end.writeUInt32LE(centralOffset, END_RECORD.centralDirectoryOffset);
  if (!zip64) return [end];
  const record = Buffer.alloc(ZIP64_END_RECORD_SIZE);
  record.writeUInt32LE(ZIP64_END_RECORD_SIGNATURE, 0);
  // The record's size counts neither its signature nor this field itself: 12 bytes fewer.
  record.writeBigUInt64LE(BigInt(ZIP64_END_RECORD_SIZE - 12), ZIP64_END_RECORD.recordSize);
  record.writeUInt16LE((options.os << 8) | VERSION_ZIP64, ZIP64_END_RECORD.versionMadeBy);
  record.writeUInt16LE(VERSION_ZIP64, ZIP64_END_RECORD.versionNeeded);
  record.writeBigUInt64LE(BigInt(count), ZIP64_END_RECORD.diskEntries);
  record.writeBigUInt64LE(BigInt(count), ZIP64_END_RECORD.entries);
  record.writeBigUInt64LE(BigInt(centralSize), ZIP64_END_RECORD.centralDirectorySize);
  record.writeBigUInt64LE(BigInt(centralOffset), ZIP64_END_RECORD.centralDirectoryOffset);
  const locator = Buffer.alloc(ZIP64_LOCATOR_SIZE);
  locator.writeUInt32LE(ZIP64_LOCATOR_SIGNATURE, 0);
  locator.writeBigUInt64LE(BigInt(centralOffset + centralSize), ZIP64_LOCATOR.endRecordOffset);
  locator.writeUInt32LE(1, ZIP64_LOCATOR.disks);
  return [record, locator, end];
}
