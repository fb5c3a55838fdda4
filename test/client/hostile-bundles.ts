// Archives an attacker makes: a bundle forged with its inner manifest recomputed, so it passes
// the bundle's self-check, and zip bombs (gzip and zip) whose deflate data costs a thousandth
// of what it inflates to.
import { createHash } from 'node:crypto';
import { constants, deflateRawSync } from 'node:zlib';
import { bundleEntries, type NamedBytes } from '../../src/build/bundles.ts';
import type { Content } from '../../src/build/content.ts';
import { BUNDLE_MANIFEST } from '../../src/contract/bundle-layout.ts';
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
  /** Bytes of extra field after the name in its local header and in its central one, and of comment (default 0). */
  localExtra?: number;
  centralExtra?: number;
  comment?: number;
}

/** A zip of deflated entries, with the sizes it is told to declare (CRCs left at 0). */
export function zipOf(entries: BombEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(entry.localExtra ?? 0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
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
