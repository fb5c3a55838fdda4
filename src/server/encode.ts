// Encodes a body the edge made for one query (a near-miss suggestion) in the encoding the
// core chose, for the Node server: every other body was compressed by the build (the Worker
// lets workerd encode such a body). The qualities are the quick end: such a body is small and
// encoded on a request's path, once per answer (the adapter remembers prepared answers).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from '../edge/negotiation.ts';

/** Bytes a Response can send (backed by an ArrayBuffer, not a SharedArrayBuffer). */
export type Bytes = Uint8Array<ArrayBuffer>;

const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

export function encodeText(text: string, encoding: Encoding): Bytes {
  // Copied into a Uint8Array of its own ArrayBuffer, as a Response takes in both runtimes' types.
  const identity = new Uint8Array(new TextEncoder().encode(text));
  if (encoding === 'br')
    return new Uint8Array(
      brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }),
    );
  if (encoding === 'gzip') return new Uint8Array(gzipSync(identity, { level: GZIP_LEVEL }));
  return identity;
}
