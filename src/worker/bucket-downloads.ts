// The R2 mode's large downloads: the bundles too large for a static asset, served by the Worker
// from the bucket at their own /downloads/ URL, as a file server would (ETag, Content-Length,
// a single byte range read from R2 by range, never the whole object for a part). The listing
// of the build (src/contract/bucket-layout.ts) says which names these are; it is read once per
// isolate. The Worker does not hash what it sends: a download's SHA-256 is checked by whoever
// downloads it, against latest.json (the client's --sha256 / --url).
import { contentRange, noneMatch, rangeOf } from '../contract/byte-ranges.ts';
import { type BucketDownload, type DownloadsListing, downloadsListingKey } from '../contract/bucket-layout.ts';
import { CACHE_STATIC } from '../contract/headers.ts';

/** Answers a GET or HEAD of a download in the bucket; undefined for any other path (a static asset). */
export type DownloadServer = (request: Request, pathname: string) => Promise<Response | undefined>;

export function bucketDownloads(bucket: R2Bucket, indexId: string): DownloadServer {
  let listing: Promise<DownloadsListing> | undefined;
  const readListing = async (): Promise<DownloadsListing> => {
    const object = await bucket.get(downloadsListingKey(indexId));
    // An index uploaded before downloads could live in R2 has no listing: all its downloads are static.
    return object ? ((await object.json()) as DownloadsListing) : {};
  };
  return async (request, pathname) => {
    listing ??= readListing().catch((error: unknown) => {
      listing = undefined;
      throw error;
    });
    const known = await listing;
    // Percent-encoding names the same file (the static assets decode it too); a bad one names none.
    const path = decodedPath(pathname);
    const download = path !== undefined && Object.hasOwn(known, path) ? known[path] : undefined;
    return download && serveDownload(bucket, download, request);
  };
}

function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

async function serveDownload(bucket: R2Bucket, download: BucketDownload, request: Request): Promise<Response> {
  const { key, size, sha256, contentType } = download;
  const etag = `"${sha256}"`;
  const headers = new Headers({
    ETag: etag,
    'Content-Type': contentType,
    'Cache-Control': CACHE_STATIC,
    'Accept-Ranges': 'bytes',
  });
  if (noneMatch(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
  const range = rangeOf(request.headers.get('range'), size, request.headers.get('if-range'), etag);
  if (range.type === 'unsatisfiable') {
    headers.set('Content-Range', contentRange(range, size) ?? '');
    headers.set('Content-Length', '0');
    return new Response(null, { status: 416, headers });
  }
  const part = range.type === 'part' ? { offset: range.start, length: range.end - range.start + 1 } : undefined;
  headers.set('Content-Length', String(part ? part.length : size));
  if (part) headers.set('Content-Range', contentRange(range, size) ?? '');
  const status = part ? 206 : 200;
  // HEAD needs nothing from the bucket: the listing states the size.
  if (request.method === 'HEAD') return new Response(null, { status, headers });
  const object = await bucket.get(key, part ? { range: part } : {});
  if (!object) throw new Error(`${key} (${new URL(request.url).pathname}) is missing from the R2 bucket`);
  return new Response(object.body, { status, headers });
}
