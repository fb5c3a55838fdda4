// Where the API's files live in an R2 bucket (the R2 mode, docs/deploy.md): one object per
// body, named by its SHA-256 as in dist/, and the routing index under a prefix named by the
// index's own digest. Downloads too large for a static asset are objects named by their
// SHA-256 too, listed in a small object under the index's prefix. No object is ever
// overwritten: a deploy adds the objects the bucket lacks, and an earlier Worker version (a
// rollback) still finds its index, its bodies and its downloads.
import { BUNDLE_FORMATS, BUNDLE_NAME, type BundleFormat, DOWNLOADS_DIR, type Latest } from './bundle-layout.ts';
import { BODIES_DIR, INDEX_DIR } from './paths.ts';

/** The bucket's binding in the Worker (wrangler's `[[r2_buckets]]`). */
export const BUCKET_BINDING = 'API_BUCKET';
/** The Worker's variable naming the index it serves: the prefix `index/<API_INDEX>/`. */
export const INDEX_VARIABLE = 'API_INDEX';

/**
 * The bucket key of an API file given by its dist/ path (`api/bodies/<sha256>`,
 * `api/index/...`); undefined for a file the bucket does not hold (the Node server's pack).
 */
export function bucketKey(distPath: string, indexId: string): string | undefined {
  if (distPath.startsWith(`${BODIES_DIR}/`)) return `bodies/${distPath.slice(BODIES_DIR.length + 1)}`;
  if (distPath.startsWith(`${INDEX_DIR}/`)) return `index/${indexId}/${distPath.slice(INDEX_DIR.length + 1)}`;
  return undefined;
}

/** The largest file a Worker's static assets may hold, on every plan: a larger download goes to R2. */
export const STATIC_ASSET_FILE_BYTES = 25 * 1024 * 1024;

/** Where a download lives in the bucket: named by the SHA-256 of its bytes. */
export const downloadKey = (sha256: string): string => `downloads/${sha256}`;

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

/**
 * The listing's key: under the index's prefix, and in the digest that names it (API_INDEX), so
 * each Worker version finds the downloads of its own build.
 */
export const downloadsListingKey = (indexId: string): string => `index/${indexId}/downloads.json`;

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
 * The download a request's path names in a listing: by its decoded spelling, as a static file
 * server reads it (%74 is t); undefined for any other path, or a bad encoding.
 */
export function downloadAt(listing: DownloadsListing, pathname: string): BucketDownload | undefined {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  return Object.hasOwn(listing, path) ? listing[path] : undefined;
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
