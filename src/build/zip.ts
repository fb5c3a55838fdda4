// A deterministic .zip writer over Node's own zlib. fflate's zipSync allocated some 170 KB of
// typed arrays per file; with 200,000 files beside a large heap, the garbage collections
// those allocations set off made the archive cost grow with the square of the records.
// zlib's sync calls free their memory at once. Past 65,535 files the archive carries the
// ZIP64 end records (APPNOTE.TXT 4.3.14-4.3.16), which readers such as fflate's unzipSync follow.
import { crc32, deflateRawSync } from 'node:zlib';

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

const DEFLATE = 8;
const VERSION = 20;
const VERSION_ZIP64 = 45;
const UTF8_NAMES = 0x800;
const MAX_16 = 0xffff;
const MAX_32 = 0xffffffff;

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
      flags: name.length === file.name.length ? 0 : UTF8_NAMES,
      crc: crc32(file.bytes),
      compressedSize: data.length,
      size: file.bytes.length,
    };
    if (offset > MAX_32 || data.length > MAX_32) throw new Error(`${file.name}: the zip grew past 4 GiB`);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeCommon(local, 4, fields, options);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, data);

    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((options.os << 8) | VERSION, 4);
    writeCommon(header, 6, fields, options);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(options.attrs >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    offset += local.length + name.length + data.length;
  }
  const centralSize = central.reduce((sum, part) => sum + part.length, 0);
  if (offset + centralSize > MAX_32) throw new Error('the zip grew past 4 GiB');
  return Buffer.concat([...parts, ...central, ...endRecords(files.length, centralSize, offset, options)]);
}

/** Version needed, flags, method, time, date, CRC and sizes: the same run in both headers. */
function writeCommon(
  buffer: Buffer,
  at: number,
  fields: { flags: number; crc: number; compressedSize: number; size: number },
  options: ZipOptions,
): void {
  buffer.writeUInt16LE(VERSION, at);
  buffer.writeUInt16LE(fields.flags, at + 2);
  buffer.writeUInt16LE(DEFLATE, at + 4);
  buffer.writeUInt16LE(options.dosTime, at + 6);
  buffer.writeUInt16LE(options.dosDate, at + 8);
  buffer.writeUInt32LE(fields.crc, at + 10);
  buffer.writeUInt32LE(fields.compressedSize, at + 14);
  buffer.writeUInt32LE(fields.size, at + 18);
}

/** The end of central directory record, preceded by the ZIP64 record and locator when the count needs them. */
function endRecords(count: number, centralSize: number, centralOffset: number, options: ZipOptions): Buffer[] {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const zip64 = count >= MAX_16;
  end.writeUInt16LE(zip64 ? MAX_16 : count, 8);
  end.writeUInt16LE(zip64 ? MAX_16 : count, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralOffset, 16);
  if (!zip64) return [end];
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE((options.os << 8) | VERSION_ZIP64, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(centralSize), 40);
  record.writeBigUInt64LE(BigInt(centralOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(centralOffset + centralSize), 8);
  locator.writeUInt32LE(1, 16);
  return [record, locator, end];
}
