// The R2 mode's objects of a build: what the bucket must hold for dist/ (src/contract/
// bucket-layout.ts names them), the static assets without the API folder and without the
// downloads in R2, and the upload of what a bucket lacks. `npm run worker` seeds wrangler's
// local R2 with it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  bucketKey,
  bundleContentType,
  type DeployObject,
  deployKey,
  downloadKey,
  downloadPath,
  type DownloadsListing,
  INDEX_ID_LENGTH,
  type ScopeRoot,
  STATIC_ASSET_FILE_BYTES,
  scopeName,
  scopeRootKey,
  shardKey,
} from '../contract/bucket-layout.ts';
import { DOWNLOADS_DIR } from '../contract/bundle-layout.ts';
import { API_DIR, BODIES_DIR, RELEASES_INDEX_DIR, rootPath, shardPath } from '../contract/paths.ts';
import { checkRoot } from '../contract/route-index.ts';
import { temporaryFolder } from './temporary-folder.ts';

export interface BucketObject {
  key: string;
  size: number;
  /** Its bytes: a file of dist/, or an object the plan makes (a scope root, the deploy object). */
  read(): Uint8Array;
}

export interface BucketPlan {
  /** API_INDEX: the digest of the deploy object, which names every other object the Worker reads. */
  indexId: string;
  /**
   * In the order they go up: bodies, shards and downloads, then the scope roots that name the
   * shards, then the deploy object that names the roots and downloads.
   */
  objects: BucketObject[];
  /** The downloads the bucket serves, by URL path: the static assets leave them out. */
  downloads: DownloadsListing;
}

function filesBelow(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const fileObject = (key: string, file: string): BucketObject => ({
  key,
  size: statSync(file).size,
  read: () => readFileSync(file),
});

/** An object the plan makes, held in memory. */
const madeObject = (key: string, bytes: Uint8Array): BucketObject => ({ key, size: bytes.length, read: () => bytes });

/** JSON's bytes with the SHA-256 that names them. */
function namedJson(value: unknown): { bytes: Uint8Array; sha256: string } {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return { bytes, sha256: sha256Of(bytes) };
}

/**
 * The offline bundles of dist/downloads/ larger than `downloadsAbove` bytes, each named by its
 * SHA-256, and their listing by URL path.
 */
function bucketDownloads(
  distDir: string,
  downloadsAbove: number,
): { objects: BucketObject[]; listing: DownloadsListing } {
  const folder = join(distDir, DOWNLOADS_DIR);
  const objects: BucketObject[] = [];
  const listing: DownloadsListing = {};
  if (!existsSync(folder)) return { objects, listing };
  for (const name of readdirSync(folder).sort()) {
    const file = join(folder, name);
    const contentType = bundleContentType(name);
    const size = statSync(file).size;
    if (contentType === undefined || size <= downloadsAbove) continue;
    const sha256 = sha256Of(readFileSync(file));
    const key = downloadKey(sha256);
    objects.push(fileObject(key, file));
    listing[downloadPath(name)] = { key, size, sha256, contentType };
  }
  return { objects, listing };
}

/** The scopes of a build's index: the current data, then each release by its id. */
function scopesOf(distDir: string): (string | undefined)[] {
  const releases = join(distDir, RELEASES_INDEX_DIR);
  return [undefined, ...(existsSync(releases) ? readdirSync(releases).sort() : [])];
}

/**
 * A scope's index as the bucket holds it: each shard by its SHA-256 (a shard two scopes share,
 * or a release left as it was, is one object), and the scope root listing them.
 */
function scopeObjects(
  distDir: string,
  release: string | undefined,
): { shards: BucketObject[]; root: BucketObject; rootSha256: string } {
  const rootFile = join(distDir, rootPath(release));
  if (!existsSync(rootFile)) throw new Error(`${rootPath(release)} is missing: the build's index is incomplete`);
  const root: unknown = JSON.parse(readFileSync(rootFile, 'utf8'));
  const shards = Array.from({ length: checkRoot(root, rootPath(release)).shards }, (_, n) => {
    const file = join(distDir, shardPath(release, n));
    if (!existsSync(file)) throw new Error(`${shardPath(release, n)} is missing: the build's index is incomplete`);
    return { file, sha256: sha256Of(readFileSync(file)) };
  });
  const scopeRoot: ScopeRoot = { root: root as ScopeRoot['root'], shards: shards.map(({ sha256 }) => sha256) };
  const { bytes, sha256 } = namedJson(scopeRoot);
  return {
    shards: shards.map(({ file, sha256 }) => fileObject(shardKey(sha256), file)),
    root: madeObject(scopeRootKey(sha256), bytes),
    rootSha256: sha256,
  };
}

/** The objects of a list by key, each once (equal keys hold equal bytes). */
const eachOnce = (objects: BucketObject[]) => [...new Map(objects.map((object) => [object.key, object])).values()];

/**
 * The objects of a build: its bodies, its routing index keyed by content (the Node server's pack
 * is not one), its bundles larger than `downloadsAbove` bytes, and the deploy object naming the
 * index's scopes and the downloads.
 */
export function bucketPlan(distDir: string, downloadsAbove = STATIC_ASSET_FILE_BYTES): BucketPlan {
  const distPath = (file: string) => relative(distDir, file).split('\\').join('/');
  const bodies = filesBelow(join(distDir, BODIES_DIR))
    .sort()
    .map((file) => {
      const key = bucketKey(distPath(file));
      if (key === undefined) throw new Error(`${distPath(file)} has no place in the bucket`);
      return fileObject(key, file);
    });
  const downloads = bucketDownloads(distDir, downloadsAbove);
  const shards: BucketObject[] = [];
  const roots: BucketObject[] = [];
  const deploy: DeployObject = { scopes: {}, downloads: downloads.listing };
  for (const release of scopesOf(distDir)) {
    const scope = scopeObjects(distDir, release);
    shards.push(...scope.shards);
    roots.push(scope.root);
    deploy.scopes[scopeName(release)] = scope.rootSha256;
  }
  const { bytes, sha256 } = namedJson(deploy);
  const indexId = sha256.slice(0, INDEX_ID_LENGTH);
  return {
    indexId,
    objects: [
      ...bodies,
      ...eachOnce(shards),
      ...downloads.objects,
      ...eachOnce(roots),
      madeObject(deployKey(indexId), bytes),
    ],
    downloads: downloads.listing,
  };
}

/**
 * The part of a bucket the upload needs: R2Bucket's list and put, as wrangler's proxy gives them.
 * R2 lists each object's etag, the MD5 of its bytes (for an object put whole, as this upload puts
 * them), and refuses a put whose bytes do not match the `md5` given with it.
 */
export interface WritableBucket {
  list(options: { prefix?: string; cursor?: string }): Promise<{
    objects: { key: string; etag: string }[];
    truncated: boolean;
    cursor?: string;
  }>;
  put(key: string, value: ArrayBuffer, options: { md5: string }): Promise<unknown>;
}

/** The etag of each object in the bucket, by key. */
async function etagsOf(bucket: WritableBucket): Promise<Map<string, string>> {
  const etags = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await bucket.list(cursor === undefined ? {} : { cursor });
    for (const object of page.objects) etags.set(object.key, object.etag);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return etags;
}

const md5Of = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');

/** What an upload puts: the objects the bucket lacks whole, and how many of them it holds with other bytes. */
export interface UploadCount {
  missing: number;
  /** Of those, the objects under their key with other bytes than the plan's (a bad write): put again. */
  corrupt: number;
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
 * Puts the objects the bucket lacks in the plan's order, the deploy object last: an object whole
 * in the bucket is never overwritten (its key names its content) and none goes up before what it
 * names, so an interrupted upload leaves what was there serving and a second run finishes it; a
 * failed put is an UploadInterrupted naming its key. An object whose etag is not the MD5 of the
 * plan's bytes (a bad write, which the Worker refuses on every read) counts as lacking and is put
 * again. Returns how many it put (with `dryRun`, would put: it puts none).
 */
export async function uploadMissing(bucket: WritableBucket, plan: BucketPlan, dryRun = false): Promise<UploadCount> {
  const etags = await etagsOf(bucket);
  let corrupt = 0;
  const missing = plan.objects.filter(({ key, read }) => {
    const etag = etags.get(key);
    if (etag === undefined) return true;
    if (etag === md5Of(read())) return false;
    corrupt++;
    return true;
  });
  if (dryRun) return { missing: missing.length, corrupt };
  for (const [put, { key, read }] of missing.entries()) {
    // An ArrayBuffer of its own: wrangler's proxy cannot pass a view into Node's shared pool.
    const bytes = read();
    const body = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    await bucket.put(key, body, { md5: md5Of(bytes) }).catch((error: unknown) => {
      throw new UploadInterrupted(key, put, missing.length, error);
    });
  }
  return { missing: missing.length, corrupt };
}

/** The files of dist/ (paths relative to it) the bucket serves in place of the static assets: its downloads. */
const servedFromBucket = (plan: Pick<BucketPlan, 'downloads'>): Set<string> =>
  new Set(Object.keys(plan.downloads).map((path) => path.slice(1)));

/** The files of dist/ (by path relative to it) static in the R2 mode: not the API, not a download in R2. */
export function staticInR2Mode<T extends { path: string }>(
  files: readonly T[],
  plan: Pick<BucketPlan, 'downloads'>,
): T[] {
  const inBucket = servedFromBucket(plan);
  return files.filter((file) => !file.path.startsWith(`${API_DIR}/`) && !inBucket.has(file.path));
}

/**
 * The static assets of the R2 mode: dist/ without its API folder and without the downloads the
 * bucket serves, as a folder of links in a temporary folder (dist/ itself stays as the Node
 * server serves it). Returns the folder and its removal.
 */
export function assetsWithoutApi(
  distDir: string,
  plan?: Pick<BucketPlan, 'downloads'>,
): { dir: string; remove(): void } {
  const folder = temporaryFolder('treefarm-assets-');
  const dir = join(folder.path, 'assets');
  mkdirSync(dir);
  const leftOut = plan ? servedFromBucket(plan) : new Set<string>();
  for (const entry of readdirSync(distDir)) {
    if (entry === API_DIR) continue;
    if (entry !== DOWNLOADS_DIR || leftOut.size === 0) {
      symlinkSync(join(distDir, entry), join(dir, entry));
      continue;
    }
    // The downloads folder file by file, but those in the bucket.
    mkdirSync(join(dir, entry));
    for (const name of readdirSync(join(distDir, entry)))
      if (!leftOut.has(`${entry}/${name}`)) symlinkSync(join(distDir, entry, name), join(dir, entry, name));
  }
  return { dir, remove: folder.remove };
}
