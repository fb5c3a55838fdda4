// The API bodies of one build, held in memory: every API file and its br and gzip variants,
// and the files of the suggestion index, as the build wrote them, read once from dist/ and
// each checked against the manifest's sha256 and size. Nothing is compressed here. A build
// that does not match its manifest is refused whole, naming the file, so a server never mixes
// versions.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type Compression, compressedPath, MANIFEST_FILE } from '../contract/paths.ts';
import type { Encoding } from '../edge/negotiation.ts';
import { buildManifestSchema, type BuildManifest, type ManifestFile } from '../schema/manifest.ts';

export class DistError extends Error {
  override name = 'DistError';
}

type Variants = Record<Encoding, Buffer>;

export interface BodyStore {
  manifest: BuildManifest;
  /** The bytes of an API file of this build in one encoding. */
  bytes(file: string, encoding: Encoding): Buffer;
  /** A file of the build's suggestion index (manifest.index), as text. */
  indexText(file: string): string;
}

export async function readManifest(distDir: string): Promise<BuildManifest> {
  const path = join(distDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new DistError(`${path} is missing: run npm run build first.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DistError(`${path} is not valid JSON (${(error as Error).message}): rebuild with npm run build.`);
  }
  const result = buildManifestSchema.safeParse(json);
  if (!result.success)
    throw new DistError(
      `${path} is not a build manifest (${result.error.issues[0]?.message}): rebuild with npm run build.`,
    );
  return result.data;
}

/**
 * Small files are read into shared slabs rather than one allocation each: at 100k records a
 * build has 600k files, and a Buffer of its own per file would cost more than the bytes. The
 * manifest gives each file's size, so a read is open, read, close: no stat.
 */
class SlabReader {
  static readonly SLAB_BYTES = 4 * 1024 * 1024;
  private slab = Buffer.allocUnsafeSlow(SlabReader.SLAB_BYTES);
  private used = 0;

  /**
   * The file at `path`, expected to hold `size` bytes; one byte more is asked for, so a longer
   * file shows (and fails its check). Throws (naming nothing) when it cannot be read.
   */
  read(path: string, size: number): Buffer {
    const fd = openSync(path, 'r');
    try {
      if (size + 1 > SlabReader.SLAB_BYTES / 8) return this.fill(fd, Buffer.allocUnsafeSlow(size + 1));
      if (this.used + size + 1 > this.slab.length) {
        this.slab = Buffer.allocUnsafeSlow(SlabReader.SLAB_BYTES);
        this.used = 0;
      }
      const bytes = this.fill(fd, this.slab.subarray(this.used, this.used + size + 1));
      this.used += bytes.length;
      return bytes;
    } finally {
      closeSync(fd);
    }
  }

  private fill(fd: number, target: Buffer): Buffer {
    let filled = 0;
    while (filled < target.length) {
      const read = readSync(fd, target, filled, target.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return target.subarray(0, filled);
  }
}

/** Files read between two turns of the event loop, so a reload never stalls serving for long. */
const FILES_PER_TURN = 128;

/** Reads the file at `path` below `distDir` and checks it against its manifest entry. */
function readChecked(reader: SlabReader, distDir: string, path: string, expected: ManifestFile): Buffer {
  const fullPath = join(distDir, path);
  let bytes: Buffer;
  try {
    bytes = reader.read(fullPath, expected.size);
  } catch {
    throw new DistError(`${fullPath} is missing; the build in ${distDir} is incomplete: rebuild with npm run build.`);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== expected.size || digest !== expected.sha256) {
    // One byte more than expected was asked for: a longer file reads as "more than" its size.
    const size = bytes.length > expected.size ? `more than ${expected.size}` : String(bytes.length);
    throw new DistError(
      `${fullPath} does not match the manifest (${size} bytes, sha256 ${digest.slice(0, 12)}…; ` +
        `expected ${expected.size} bytes, ${expected.sha256.slice(0, 12)}…): it is corrupted or from another build.`,
    );
  }
  return bytes;
}

/**
 * Reads every API file of the build in `distDir` and its variants, each checked against the
 * manifest. The reads are synchronous (one system call each, no thread-pool round trips) in
 * short runs between turns of the event loop, so requests keep being served during a reload.
 */
export async function loadBodyStore(distDir: string): Promise<BodyStore> {
  const manifest = await readManifest(distDir);
  const reader = new SlabReader();
  const files = new Map<string, Variants>();
  let sinceYield = 0;
  for (const [path, expected] of Object.entries(manifest.files)) {
    const variant = (compression: Compression) =>
      readChecked(reader, distDir, compressedPath(path, compression), expected[compression]);
    files.set(path, {
      identity: readChecked(reader, distDir, path, expected),
      br: variant('br'),
      gzip: variant('gzip'),
    });
    if (++sinceYield === FILES_PER_TURN) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  const index = new Map<string, Buffer>();
  for (const [path, expected] of Object.entries(manifest.index)) {
    index.set(path, readChecked(reader, distDir, path, expected));
    if (++sinceYield === FILES_PER_TURN) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return {
    manifest,
    bytes(file, encoding) {
      const variants = files.get(file);
      if (!variants) throw new DistError(`${file} is not an API file of this build`);
      return variants[encoding];
    },
    indexText(file) {
      const bytes = index.get(file);
      if (!bytes) throw new DistError(`${file} is not an index file of this build`);
      return bytes.toString('utf8');
    },
  };
}
