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

/** A container's header: where its parts start, and their sizes in order. */
interface BodyHeader {
  start: number;
  identity: number;
  br: number;
  gzip: number;
}

/** The header at the start of `bytes`, which may run on past the container; undefined if there is none. */
function readHeader(bytes: Uint8Array): BodyHeader | undefined {
  const end = bytes.subarray(0, MAX_HEADER).indexOf(LINE_FEED);
  if (end < 0) return undefined;
  const sizes = /^(\d+) (\d+) (\d+)$/.exec(new TextDecoder().decode(bytes.subarray(0, end)));
  if (!sizes) return undefined;
  return { start: end + 1, identity: Number(sizes[1]), br: Number(sizes[2]), gzip: Number(sizes[3]) };
}

/**
 * The length of the container that starts `bytes` (which may hold more after it, as the pack
 * holds one after another), as its header states; undefined when they do not start with a header.
 */
export function containerLength(bytes: Uint8Array): number | undefined {
  const header = readHeader(bytes);
  return header && lengthOf(header);
}

const lengthOf = ({ start, identity, br, gzip }: BodyHeader) => start + identity + br + gzip;

/** The layout of a container, or an error naming what is wrong (`name` says which body). */
export function bodyLayout(bytes: Uint8Array, name: string): BodyLayout {
  const header = readHeader(bytes);
  if (!header || lengthOf(header) !== bytes.length)
    throw new BodyContainerError(`${name} is not a stored body: its header or its length is wrong.`);
  const { start, identity, br } = header;
  return {
    identity: [start, start + identity],
    br: [start + identity, start + identity + br],
    gzip: [start + identity + br, bytes.length],
  };
}
