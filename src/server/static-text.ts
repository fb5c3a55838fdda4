// The wiki's text files (pages, styles, scripts, Pagefind's scripts and JSON, feeds, SVG) sent br
// or gzip as the client's Accept-Encoding asks, as the API's bodies are. The build does not
// precompress them: Cloudflare compresses the Worker's static assets itself, so this is the Node
// server's own work, done once per file and encoding on its first request and kept in memory
// against the file's size, modification time and inode (BENCHMARKS.md, "The wiki, compressed").
// Anything else (a Range, identity, a path serve-handler would redirect or answer otherwise) is
// left to serve-handler, whole and uncompressed.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import { type Encoding, etagFor } from '../edge/negotiation.ts';
import { type Bytes, encodeBytes } from './encode.ts';

/**
 * The files sent compressed, by extension, with the Content-Type serve-handler sends them with.
 * Pagefind's index, fragments and WebAssembly (.pf_*, .pagefind) are gzip already; images and
 * the offline bundles are compressed formats.
 */
export const TEXT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** A text file of the wiki that a request names. */
export interface TextFile {
  /** The absolute path. */
  path: string;
  /** The path from the site's root, as serve-handler matches the _headers rules: "/trees/oak-tree/index.html". */
  sitePath: string;
  contentType: string;
  stats: Stats;
}

/**
 * The text file `target` (a path and query: the file src/contract/site-paths.ts resolved) names,
 * when serve-handler would answer it with that file as it is: a path ending in "/" names its
 * index.html, a path with a text file's extension that file.
 * Undefined for anything else, serve-handler's to answer. `lstat` is the file system
 * serve-handler sees (static-files.ts), so what it refuses is not found here either.
 */
export async function textFileAt(
  root: string,
  target: string,
  lstat: (path: string) => Promise<Stats>,
): Promise<TextFile | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(target.split('?', 1)[0] ?? '');
  } catch {
    return undefined;
  }
  const named = decoded.endsWith('/') ? `${decoded}index.html` : decoded;
  const extension = extname(named);
  const contentType = TEXT_TYPES[extension];
  if (contentType === undefined) return undefined;
  const path = join(root, named);
  const fromRoot = relative(root, path);
  if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) return undefined;
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isFile()) return undefined;
  return { path, sitePath: `/${fromRoot.split(sep).join('/')}`, contentType, stats };
}

/** A text file in one encoding. */
export interface TextVariant {
  /** The ETag of this encoding of these bytes: the SHA-256 of the file, with the encoding's suffix. */
  etag: string;
  bytes: Bytes;
}

interface Kept extends TextVariant {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** The bytes of encoded files kept at once, past which the oldest are dropped (and encoded again if asked). */
export const TEXT_VARIANT_BYTES = 32 * 1024 * 1024;

/** What a file that is gone or unreadable gives: serve-handler then answers it as it does (404, 500). */
export type TextVariants = (file: TextFile, encoding: Encoding) => Promise<TextVariant | undefined>;

/** The variants of one build's files, remembered up to `limitBytes` of encoded bytes. */
export function textVariants(limitBytes = TEXT_VARIANT_BYTES): TextVariants {
  const kept = new Map<string, Kept>();
  let keptBytes = 0;
  const keep = (key: string, variant: Kept) => {
    if (variant.bytes.byteLength > limitBytes) return;
    const former = kept.get(key);
    if (former) keptBytes -= former.bytes.byteLength;
    kept.delete(key);
    for (const [oldest, { bytes }] of kept) {
      if (keptBytes + variant.bytes.byteLength <= limitBytes) break;
      kept.delete(oldest);
      keptBytes -= bytes.byteLength;
    }
    kept.set(key, variant);
    keptBytes += variant.bytes.byteLength;
  };
  return async (file, encoding) => {
    const key = `${encoding}:${file.path}`;
    const known = kept.get(key);
    const { size, mtimeMs, ino } = file.stats;
    if (known && known.size === size && known.mtimeMs === mtimeMs && known.ino === ino) return known;
    const read = await readWhole(file.path);
    if (!read) return undefined;
    const sha256 = createHash('sha256').update(read.bytes).digest('hex');
    const variant = {
      etag: etagFor(sha256, encoding),
      bytes: encodeBytes(read.bytes, encoding),
      size: read.stats.size,
      mtimeMs: read.stats.mtimeMs,
      ino: read.stats.ino,
    };
    keep(key, variant);
    return variant;
  };
}

/** A file's bytes and the stats of what was read (undefined: gone, unreadable, or changing as it was read). */
async function readWhole(path: string): Promise<{ bytes: Buffer; stats: Stats } | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const bytes = await handle.readFile();
    const stats = await handle.stat();
    return bytes.length === stats.size ? { bytes, stats } : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
