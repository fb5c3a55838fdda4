// The gzip member of a .tar.gz (RFC 1952), read as untrusted input: its header parsed once, in
// time linear in its length and capped (fflate's streaming Gunzip parses a header again on every
// push until it is whole, which a file name of megabytes makes quadratic), its deflate data
// inflated a slice at a time, its trailer's CRC-32 and length checked as `gzip -t` checks them,
// and nothing allowed after it: what is read is what `gzip -d` gives.
import { Inflate } from 'fflate';
import { crc32, crcHex } from './crc32.ts';
import { BundleError } from './errors.ts';

/**
 * The longest gzip header read: its 10 fixed bytes and the optional extra field, file name,
 * comment and header CRC its flags announce. The build writes 10 bytes; gzip writes the file's
 * name, some tens of bytes. 64 KiB keeps a header of megabytes from costing anything.
 */
export const MAX_GZIP_HEADER_BYTES = 64 * 1024;

const FIXED_HEADER = 10;
const TRAILER = 8;
const DEFLATE = 8;
/** The header's flags (2.3.1): the optional fields present, in the order they follow the fixed bytes. */
const HEADER_CRC = 0x2;
const EXTRA = 0x4;
const NAME = 0x8;
const COMMENT = 0x10;
const RESERVED = 0xe0;

/** Compressed bytes handed to the inflater at a time: it inflates to at most some 4 MiB (deflate's 1,032 times). */
export const INFLATE_SLICE = 4096;

const tooLong = () =>
  new BundleError(
    `The archive's gzip header is longer than ${MAX_GZIP_HEADER_BYTES.toLocaleString('en-US')} bytes ` +
      '(its file name, comment or extra field): a bundle is refused with one.',
  );

const cutShort = () => new Error('its gzip header is cut short.');
const view = (bytes: Uint8Array, at: number, length: number) =>
  new DataView(bytes.buffer, bytes.byteOffset + at, length);

/** Where the deflate data starts: past the header's fixed bytes and its optional fields. */
function headerEnd(bytes: Uint8Array): number {
  if (bytes.length < FIXED_HEADER) throw cutShort();
  if (bytes[2] !== DEFLATE) throw new Error(`its gzip header names compression method ${bytes[2]}, not deflate.`);
  const flags = bytes[3] as number;
  if (flags & RESERVED) throw new Error('its gzip header sets reserved flags.');
  const header = bytes.subarray(0, Math.min(bytes.length, MAX_GZIP_HEADER_BYTES + 1));
  let at = FIXED_HEADER;
  if (flags & EXTRA) at += 2 + ((header[at] ?? 0) | ((header[at + 1] ?? 0) << 8));
  for (const field of [NAME, COMMENT]) {
    if (!(flags & field)) continue;
    // A zero ends the field; indexOf finds it in one pass, however long the field.
    const zero = header.indexOf(0, at);
    if (zero === -1) throw header.length > MAX_GZIP_HEADER_BYTES ? tooLong() : cutShort();
    at = zero + 1;
  }
  if (flags & HEADER_CRC) at += 2;
  if (at > MAX_GZIP_HEADER_BYTES) throw tooLong();
  if (at > bytes.length) throw cutShort();
  // The header's CRC is the low 16 bits of the CRC-32 of the bytes before it.
  if (flags & HEADER_CRC && (crc32(bytes.subarray(0, at - 2)) & 0xffff) !== view(bytes, at - 2, 2).getUint16(0, true))
    throw new Error('its gzip header fails its CRC.');
  return at;
}

/**
 * What fflate's Inflate keeps of its state (fflate 0.8, not in its types): `s.f` is set once the
 * final block has begun and `s.l` while a block is being read, `p` holds the input it has not
 * used, and `s.p` the bit of p's first byte it stopped at. fflate says no other way where deflate
 * data ends, which is where the trailer starts; the gzip tests fail if a new fflate moves these.
 */
interface InflateState {
  s: { f?: number; l?: unknown; p?: number };
  p: Uint8Array;
}

/** Where the deflate data ended, in bytes from `pushed`'s end, or undefined while it goes on. */
function unusedAfterEnd(inflater: Inflate): number | undefined {
  const { s, p } = inflater as unknown as InflateState;
  if (!s.f || s.l) return undefined;
  return p.length - ((s.p ?? 0) & 7 ? 1 : 0);
}

/** Inflates the archive's one gzip member, handing each inflated chunk to `onData`, and checks its trailer. */
export function gunzip(bytes: Uint8Array, onData: (chunk: Uint8Array) => void): void {
  let crc = 0;
  let length = 0;
  const inflater = new Inflate((chunk) => {
    crc = crc32(chunk, crc);
    length += chunk.length;
    onData(chunk);
  });
  let end: number | undefined;
  for (let at = headerEnd(bytes); end === undefined; at += INFLATE_SLICE) {
    const slice = bytes.subarray(at, at + INFLATE_SLICE);
    // No slice is final but the last: fflate then reports deflate data that never ends.
    if (slice.length === 0) throw new Error('unexpected EOF');
    inflater.push(slice, at + slice.length === bytes.length);
    const unused = unusedAfterEnd(inflater);
    if (unused !== undefined) end = at + slice.length - unused;
  }
  if (end + TRAILER > bytes.length) throw new Error('its gzip trailer is cut short.');
  const trailer = view(bytes, end, TRAILER);
  if (trailer.getUint32(0, true) !== crc)
    throw new Error(
      `its data fails the CRC-32 of its gzip trailer (${crcHex(trailer.getUint32(0, true))}; found ${crcHex(crc)}).`,
    );
  if (trailer.getUint32(4, true) !== length % 2 ** 32)
    throw new Error(
      `it inflates to ${length.toLocaleString('en-US')} bytes; its gzip trailer says ` +
        `${trailer.getUint32(4, true).toLocaleString('en-US')} (modulo 4 GiB).`,
    );
  const after = bytes.length - end - TRAILER;
  if (after > 0)
    throw new Error(
      `${after.toLocaleString('en-US')} ${after === 1 ? 'byte follows' : 'bytes follow'} its gzip member; ` +
        'a bundle is one gzip member.',
    );
}
