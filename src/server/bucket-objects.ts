// The R2 mode's objects of a build: what the bucket must hold for dist/ (src/contract/
// bucket-layout.ts names them), the static assets without the API folder, and the upload of
// what a bucket lacks. `npm run worker` seeds wrangler's local R2 with it.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bucketKey } from '../contract/bucket-layout.ts';
import { API_DIR, BODIES_DIR, INDEX_DIR } from '../contract/paths.ts';

export interface BucketObject {
  key: string;
  /** The file in dist/ that holds its bytes. */
  file: string;
}

export interface BucketPlan {
  /** API_INDEX: the digest of the routing index, so each index has a prefix of its own. */
  indexId: string;
  objects: BucketObject[];
}

function filesBelow(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The objects of a build's API: its bodies and its routing index (the Node server's pack is not one). */
export function bucketPlan(distDir: string): BucketPlan {
  const distPath = (file: string) => relative(distDir, file).split('\\').join('/');
  const indexFiles = filesBelow(join(distDir, INDEX_DIR)).sort();
  const digest = createHash('sha256');
  for (const file of indexFiles)
    digest.update(`${distPath(file)} ${createHash('sha256').update(readFileSync(file)).digest('hex')}\n`);
  const indexId = digest.digest('hex').slice(0, 32);
  const objects = [...indexFiles, ...filesBelow(join(distDir, BODIES_DIR))].map((file) => {
    const key = bucketKey(distPath(file), indexId);
    if (key === undefined) throw new Error(`${distPath(file)} has no place in the bucket`);
    return { key, file };
  });
  return { indexId, objects };
}

/** The part of a bucket the upload needs: R2Bucket's list and put, as wrangler's proxy gives them. */
export interface WritableBucket {
  list(options: { prefix?: string; cursor?: string }): Promise<{
    objects: { key: string }[];
    truncated: boolean;
    cursor?: string;
  }>;
  put(key: string, value: ArrayBuffer): Promise<unknown>;
}

async function keysOf(bucket: WritableBucket): Promise<Set<string>> {
  const keys = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await bucket.list(cursor === undefined ? {} : { cursor });
    for (const object of page.objects) keys.add(object.key);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys;
}

/** A put that failed partway through an upload: the objects put before it stay, none is half-written. */
export class UploadInterrupted extends Error {
  override name = 'UploadInterrupted';
  /** The object whose put failed. */
  readonly key: string;
  /** How many missing objects were put before it, and how many were missing. */
  readonly put: number;
  readonly missing: number;
  constructor(key: string, put: number, missing: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${key} could not be put (${reason}); ${put} of the ${missing} missing objects were put before it`, {
      cause,
    });
    this.key = key;
    this.put = put;
    this.missing = missing;
  }
}

/**
 * Puts the objects the bucket lacks, index last: an object is never overwritten (its key names
 * its content), so an interrupted upload leaves what was there serving and a second run
 * finishes it; a failed put is an UploadInterrupted naming its key. Returns how many it put
 * (with `dryRun`, would put: it puts none).
 */
export async function uploadMissing(bucket: WritableBucket, plan: BucketPlan, dryRun = false): Promise<number> {
  const present = await keysOf(bucket);
  const missing = plan.objects.filter(({ key }) => !present.has(key));
  if (dryRun) return missing.length;
  // Bodies before the index that names them: an index is never there without its bodies.
  missing.sort((a, b) => Number(a.key.startsWith('index/')) - Number(b.key.startsWith('index/')));
  for (const [put, { key, file }] of missing.entries()) {
    // An ArrayBuffer of its own: wrangler's proxy cannot pass a view into Node's shared pool.
    const bytes = readFileSync(file);
    const body = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    await bucket.put(key, body).catch((error: unknown) => {
      throw new UploadInterrupted(key, put, missing.length, error);
    });
  }
  return missing.length;
}

/**
 * The static assets of the R2 mode: dist/ without its API folder, as a folder of links in a
 * temporary folder (dist/ itself stays as the Node server serves it). Returns the folder and
 * its removal.
 */
export function assetsWithoutApi(distDir: string): { dir: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'treefarm-assets-'));
  const dir = join(folder, 'assets');
  mkdirSync(dir);
  for (const entry of readdirSync(distDir)) if (entry !== API_DIR) symlinkSync(join(distDir, entry), join(dir, entry));
  return { dir, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
