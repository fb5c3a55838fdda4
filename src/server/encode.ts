// Encodes what the build did not compress, for the Node server, in the encoding the core chose:
// a body the edge made for one query (a near-miss suggestion), and the wiki's text files
// (static-text.ts); every API body was compressed by the build (the Worker lets workerd, and
// Cloudflare, encode the rest). The qualities are the quick end: such bytes are encoded on a
// request's path, once each (the adapter remembers them), and br at quality 11 would take 40
// times as long for a seventh fewer bytes on the wiki (BENCHMARKS.md, "The wiki, compressed").
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from '../edge/negotiation.ts';

/** Bytes a Response can send (backed by an ArrayBuffer, not a SharedArrayBuffer). */
export type Bytes = Uint8Array<ArrayBuffer>;

const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

/** `identity` in the encoding (identity: the same bytes), copied into an ArrayBuffer of its own. */
export function encodeBytes(identity: Uint8Array, encoding: Encoding): Bytes {
  if (encoding === 'br')
    return new Uint8Array(
      brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }),
    );
  if (encoding === 'gzip') return new Uint8Array(gzipSync(identity, { level: GZIP_LEVEL }));
  return new Uint8Array(identity);
}

export function encodeText(text: string, encoding: Encoding): Bytes {
  return encodeBytes(new TextEncoder().encode(text), encoding);
}
