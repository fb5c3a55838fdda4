// Encodes a body the edge made for one query (a near-miss suggestion) in the encoding the
// core chose, for both adapters: every other body was compressed by the build. node:zlib
// runs in Node and in workerd (nodejs_compat). The qualities are the quick end: such a body is
// small and encoded on a request's path, once per answer (the core remembers answers).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from './negotiation.ts';

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
