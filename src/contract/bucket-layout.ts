// Where the API's files live in an R2 bucket (the R2 mode, docs/deploy.md). Every object is
// named by its content, so no object is ever overwritten: a deploy adds the objects the bucket
// lacks (a data release: the bodies, shards and scope roots it changed, and a deploy object),
// and an earlier Worker version (a rollback) still finds everything it names.
// - `bodies/<sha256>`: each body once, as in dist/.
// - `index/shards/<sha256>`: each shard of the routing index once, as in dist/.
// - `index/roots/<sha256>`: a scope's root (the current data's, a release's) with the SHA-256
//   of each of its shards (ScopeRoot).
// - `downloads/<sha256>`: each offline bundle too large for a static asset.
// - `index/deploys/<API_INDEX>.json`: what one deploy serves, its scopes' roots and its
//   downloads (DeployObject); API_INDEX is the digest of its bytes. A Worker reads it first.
import { BUNDLE_FORMATS, BUNDLE_NAME, type BundleFormat, DOWNLOADS_DIR, type Latest } from './bundle-layout.ts';
import { isJsonObject } from './json-object.ts';
import { BODIES_DIR } from './paths.ts';
import { checkRoot, type IndexRoot } from './route-index.ts';

/** The Worker's variable naming the deploy it serves: the object `index/deploys/<API_INDEX>.json`. */
export const INDEX_VARIABLE = 'API_INDEX';

/** The bucket's folders, one per kind of object. */
export const BUCKET_FOLDERS = {
  bodies: 'bodies/',
  shards: 'index/shards/',
  roots: 'index/roots/',
  deploys: 'index/deploys/',
  downloads: 'downloads/',
} as const;

/**
 * The bucket key of a body given by its dist/ path (`api/bodies/<sha256>`); undefined for any
 * other file (the index is keyed by its content, below; the Node server's pack is not held).
 */
export function bucketKey(distPath: string): string | undefined {
  return distPath.startsWith(`${BODIES_DIR}/`)
    ? `${BUCKET_FOLDERS.bodies}${distPath.slice(BODIES_DIR.length + 1)}`
    : undefined;
}

/** Where a shard of the routing index lives: named by the SHA-256 of its bytes, whatever its scope. */
export const shardKey = (sha256: string): string => `${BUCKET_FOLDERS.shards}${sha256}`;
/** Where a scope root lives: named by the SHA-256 of its bytes. */
export const scopeRootKey = (sha256: string): string => `${BUCKET_FOLDERS.roots}${sha256}`;
/** Where a deploy object lives: API_INDEX, the digest of its bytes, names it. */
export const deployKey = (indexId: string): string => `${BUCKET_FOLDERS.deploys}${indexId}.json`;
/** How many hex digits of the deploy object's SHA-256 make API_INDEX. */
export const INDEX_ID_LENGTH = 32;

/** The deploy object's name for a scope: `current` for the current data, else the release id. */
export const scopeName = (release: string | undefined): string => release ?? 'current';

/** A scope's root.json as is, and the SHA-256 of each of its shards, shard 0 first. */
export interface ScopeRoot {
  root: IndexRoot;
  shards: string[];
}

/** What one deploy serves: each scope's root by its name (scopeName) and the downloads in the bucket. */
export interface DeployObject {
  scopes: Record<string, string>;
  downloads: DownloadsListing;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A scope root as JSON parsing gives it, checked enough that a reader never indexes with nonsense. */
export function checkScopeRoot(value: unknown, name: string): ScopeRoot {
  const { root, shards } = isJsonObject(value) ? value : {};
  const checked = checkRoot(root, name);
  if (!Array.isArray(shards) || shards.length !== checked.shards || !shards.every((sha) => SHA256_HEX.test(sha)))
    throw new Error(`${name} does not list the SHA-256 of each of its ${checked.shards} shards.`);
  return { root: checked, shards };
}

/** A deploy object as JSON parsing gives it: each scope named by a SHA-256, the downloads an object. */
export function checkDeployObject(value: unknown, name: string): DeployObject {
  const { scopes, downloads } = isJsonObject(value) ? value : {};
  if (!isJsonObject(scopes) || !Object.values(scopes).every((sha) => typeof sha === 'string' && SHA256_HEX.test(sha)))
    throw new Error(`${name} does not name each scope's root by its SHA-256.`);
  if (!isJsonObject(downloads)) throw new Error(`${name} does not list its downloads.`);
  return { scopes: scopes as Record<string, string>, downloads: downloads as DownloadsListing };
}

/** The largest file a Worker's static assets may hold, on every plan: a larger download goes to R2. */
export const STATIC_ASSET_FILE_BYTES = 25 * 1024 * 1024;

/** Where a download lives in the bucket: named by the SHA-256 of its bytes. */
export const downloadKey = (sha256: string): string => `${BUCKET_FOLDERS.downloads}${sha256}`;

/**
 * A bundle a runtime serves itself: its object in the bucket (where it is, or would be, there),
 * its size, its SHA-256 (its ETag) and its Content-Type.
 */
export interface BucketDownload {
  key: string;
  size: number;
  sha256: string;
  contentType: string;
}

/** The downloads the bucket serves, by their URL path (`/downloads/<name>`). */
export type DownloadsListing = Record<string, BucketDownload>;

/** The URL path of a file of the downloads folder. */
export const downloadPath = (name: string): string => `/${DOWNLOADS_DIR}/${name}`;

/** Content-Type of each bundle format, as the static assets send it (Cloudflare's, by extension). */
const BUNDLE_CONTENT_TYPES: Record<BundleFormat, string> = { 'tar.gz': 'application/gzip', zip: 'application/zip' };

/**
 * The Content-Type of a file of the downloads folder that may go to R2: an offline bundle. The
 * page and latest.json (and anything else) are undefined: they stay static assets.
 */
export function bundleContentType(name: string): string | undefined {
  const format = BUNDLE_FORMATS.find(
    (candidate) => name.startsWith(`${BUNDLE_NAME}-`) && name.endsWith(`.${candidate}`),
  );
  return format && BUNDLE_CONTENT_TYPES[format];
}

/** The bundles latest.json names, by URL path, as the static assets hold them (the key they would have in R2). */
export function publishedBundles(latest: Latest): DownloadsListing {
  const bundles: DownloadsListing = {};
  for (const { name, size, sha256 } of latest.bundles) {
    const contentType = bundleContentType(name);
    if (contentType) bundles[downloadPath(name)] = { key: downloadKey(sha256), size, sha256, contentType };
  }
  return bundles;
}

/**
 * What a request's path names in a listing: a download at its own path, or one spelt another
 * way, which is answered with a 307 to that path, as Workers static assets answer every other
 * spelling of a file (each segment %-decoded, empty segments dropped; `%2f` is a slash, `%64`
 * a d). Dot segments are resolved too, as a file server would. Undefined for any other path.
 */
export type DownloadAt = { type: 'file'; download: BucketDownload } | { type: 'redirect'; path: string };

/**
 * Whether a path, as WHATWG URL parsing gives it, may be some spelling of a download's path:
 * one with no `%` and no `//` is already as a file server reads it (the parser resolved its dot
 * segments), so only the downloads folder's own paths can be. Every other path needs no listing.
 */
export const mayNameDownload = (pathname: string): boolean =>
  pathname.startsWith(`/${DOWNLOADS_DIR}/`) || pathname.includes('%') || pathname.includes('//');

/** The download `pathname` names in `listing`, at its own path or spelt another way; undefined if none. */
export function downloadAt(listing: DownloadsListing, pathname: string): DownloadAt | undefined {
  if (Object.hasOwn(listing, pathname)) return { type: 'file', download: listing[pathname] as BucketDownload };
  if (!mayNameDownload(pathname)) return undefined;
  const path = pathAsServed(pathname);
  return Object.hasOwn(listing, path) ? { type: 'redirect', path } : undefined;
}

/**
 * A path as a static file server reads it: each segment %-decoded (one that does not decode
 * stays as it is), then split at every slash, empty and `.` segments dropped and `..` taking
 * the one before; a trailing slash stays (a folder's path is not its file's).
 */
function pathAsServed(pathname: string): string {
  const decoded = pathname.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
  const parts = decoded.join('/').split('/');
  const segments: string[] = [];
  for (const part of parts) {
    if (part === '..') segments.pop();
    else if (part !== '' && part !== '.') segments.push(part);
  }
  const last = parts.at(-1);
  const folder = last === '' || last === '.' || last === '..';
  return `/${segments.join('/')}${folder && segments.length > 0 ? '/' : ''}`;
}

/** The strong ETag of a download the runtime serves itself: its SHA-256, the same in every runtime. */
export const downloadEtag = (download: BucketDownload): string => `"${download.sha256}"`;

/**
 * A local run's count of the Worker's invocations (`npm run worker` with countInvocations): with
 * the variable on, GET on the path answers how many requests ran the Worker before it, so a test
 * can tell what the static assets served alone. Never set in a deployment.
 */
export const INVOCATIONS_VARIABLE = 'COUNT_INVOCATIONS';
export const INVOCATIONS_PATH = '/__invocations';
