// Compresses a body in the encoding the core chose, for the adapters that compress at request
// time. node:zlib runs in Node and in workerd (nodejs_compat).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from './negotiation.ts';

/**
 * `best`: a body compressed once and kept (a prebuilt file, a fixed text). `quick`: a body
 * merged for one request, compressed on that request's path, where brotli's best costs
 * milliseconds. Either decodes to the same bytes.
 */
export type Effort = 'best' | 'quick';

const BROTLI_QUALITY: Record<Effort, number> = { best: 11, quick: 5 };
const GZIP_LEVEL: Record<Effort, number> = { best: 9, quick: 6 };

/** Bytes a Response can send (backed by an ArrayBuffer, not a SharedArrayBuffer). */
export type Bytes = Uint8Array<ArrayBuffer>;

export function encodeBody(identity: Bytes, encoding: Encoding, effort: Effort): Bytes {
  if (encoding === 'br')
    return brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY[effort] } });
  if (encoding === 'gzip') return gzipSync(identity, { level: GZIP_LEVEL[effort] });
  return identity;
}
