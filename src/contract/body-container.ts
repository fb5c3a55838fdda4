// A body as dist/ stores it: one file holding its identity bytes and the br and gzip variants
// the build compressed once, named by the SHA-256 of the whole file, so one hash checks all
// three. Its first line gives the three sizes in ASCII ("<identity> <br> <gzip>\n"); the bytes
// follow one after another. A body only read to make answers (a near-miss shard) has no
// variants (sizes 0). Written by the build, read by both runtimes; Web-standard only.

/** The parts of a stored body. */
export type BodyPart = 'identity' | 'br' | 'gzip';
export const BODY_PARTS: readonly BodyPart[] = ['identity', 'br', 'gzip'];

const LINE_FEED = 0x0a;
/** The longest header: three sizes below 2^53. */
const MAX_HEADER = 3 * 16 + 3;

export class BodyContainerError extends Error {
  override name = 'BodyContainerError';
}

/** The container of these parts. */
export function packBody(parts: Record<BodyPart, Uint8Array>): Uint8Array<ArrayBuffer> {
  const header = new TextEncoder().encode(`${parts.identity.length} ${parts.br.length} ${parts.gzip.length}\n`);
  const bytes = new Uint8Array(header.length + parts.identity.length + parts.br.length + parts.gzip.length);
  let offset = 0;
  for (const piece of [header, parts.identity, parts.br, parts.gzip]) {
    bytes.set(piece, offset);
    offset += piece.length;
  }
  return bytes;
}

/** Where each part lies in a container: [start, end) by part. */
export type BodyLayout = Record<BodyPart, readonly [number, number]>;

/** The layout of a container, or an error naming what is wrong (`name` says which body). */
export function bodyLayout(bytes: Uint8Array, name: string): BodyLayout {
  const end = bytes.subarray(0, MAX_HEADER).indexOf(LINE_FEED);
  const header = end < 0 ? '' : new TextDecoder().decode(bytes.subarray(0, end));
  const sizes = /^(\d+) (\d+) (\d+)$/.exec(header)?.slice(1).map(Number);
  const [identity = 0, br = 0, gzip = 0] = sizes ?? [];
  if (!sizes || end + 1 + identity + br + gzip !== bytes.length)
    throw new BodyContainerError(`${name} is not a stored body: its header or its length is wrong.`);
  const start = end + 1;
  return {
    identity: [start, start + identity],
    br: [start + identity, start + identity + br],
    gzip: [start + identity + br, bytes.length],
  };
}

/** Lowercase hex of bytes. */
export function hex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

/** The SHA-256 of bytes, as lowercase hex, with Web Crypto. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}
