// Writes prebuilt API files below dist/, each with its br (quality 11) and gzip (level 9)
// variant beside it, and returns their manifest entries. Compression happens here, once per
// build, so no runtime compresses at start-up or per request. Any file given to emitFiles
// gets its variants (every emitter of API files goes through it), except the files of the
// suggestion index that the edge reads and never sends (`indexOnly`): those are listed apart.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { type Compression, compressedPath } from '../contract/paths.ts';
import type { BuildManifest, BuiltFile, ManifestFile } from '../schema/manifest.ts';

export interface ApiFile {
  /** Path below dist/, forward slashes. */
  path: string;
  body: string;
  /** Read by the edge to make an answer, never sent as it is: no variants, listed in the manifest's `index`. */
  indexOnly?: boolean;
}

/** The manifest's lists of what emitFiles wrote: served files with variants, and index files. */
export type EmittedFiles = Pick<BuildManifest, 'files' | 'index'>;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** br at its best ratio, with a window no larger than the body needs (same bytes, less memory). */
function brotli(bytes: Buffer): Promise<Buffer> {
  const window = Math.min(24, Math.max(10, Math.ceil(Math.log2(bytes.length + 1))));
  return brotliAsync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: window,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

const COMPRESS: Record<Compression, (bytes: Buffer) => Promise<Buffer>> = {
  br: brotli,
  gzip: (bytes) => gzipAsync(bytes, { level: 9 }),
};

const digestOf = (bytes: Buffer): ManifestFile => ({
  sha256: createHash('sha256').update(bytes).digest('hex'),
  size: bytes.length,
});

/**
 * Runs `work` over `items` with at most `limit` running at once (zlib's thread pool does the
 * compressing, so the cores work in parallel). The first failure stops new work and is thrown
 * once the running ones have settled.
 */
async function forEachConcurrently<T>(items: Iterable<T>, limit: number, work: (item: T) => Promise<void>) {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  for (const item of items) {
    if (failure) break;
    const task: Promise<void> = work(item).then(
      () => void running.delete(task),
      (error: unknown) => {
        running.delete(task);
        failure ??= { error };
      },
    );
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}

/**
 * Writes every file and its variants below `outDir`, in parallel across the cores, and
 * returns their manifest entries in the order given. Consecutive files with the same body
 * (a record's name and alias envelopes) are compressed once.
 */
export async function emitFiles(files: Iterable<ApiFile>, outDir: string): Promise<EmittedFiles> {
  const order: string[] = [];
  const written = new Map<string, BuiltFile>();
  const index: BuildManifest['index'] = {};
  const madeDirs = new Set<string>();
  const write = (path: string, bytes: Buffer) => {
    const target = join(outDir, path);
    const dir = dirname(target);
    if (!madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      madeDirs.add(dir);
    }
    writeFileSync(target, bytes);
    return digestOf(bytes);
  };
  let previous: { body: string; variants: Promise<Record<Compression, Buffer>> } | undefined;
  const variantsOf = (body: string, bytes: Buffer) => {
    if (previous?.body !== body) {
      const variants = Promise.all([COMPRESS.br(bytes), COMPRESS.gzip(bytes)]).then(([br, gz]) => ({ br, gzip: gz }));
      previous = { body, variants };
    }
    return previous.variants;
  };
  await forEachConcurrently(files, availableParallelism(), async ({ path, body, indexOnly }) => {
    const identity = Buffer.from(body, 'utf8');
    if (indexOnly) {
      index[path] = write(path, identity);
      return;
    }
    order.push(path);
    const variants = variantsOf(body, identity);
    const entry = write(path, identity);
    const { br, gzip } = await variants;
    written.set(path, {
      ...entry,
      br: write(compressedPath(path, 'br'), br),
      gzip: write(compressedPath(path, 'gzip'), gzip),
    });
  });
  const entries: BuildManifest['files'] = {};
  for (const path of order) {
    const entry = written.get(path);
    if (entry) entries[path] = entry;
  }
  return { files: entries, index };
}
