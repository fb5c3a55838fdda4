// The offline bundles at their /downloads/ URL, served by the Worker alike in both modes, as
// src/contract/byte-ranges.ts says (ETag from the SHA-256, Content-Length, a single byte range,
// 304, 416), with the Content-Type and Cache-Control the static assets send:
// - in the R2 mode a bundle too large for a static asset is in the bucket; the deploy object
//   (src/contract/bucket-layout.ts), read once per isolate, lists them; a part is read from R2
//   by range, never the whole object;
// - any other bundle is a static asset; latest.json (read once per isolate) states its size and
//   SHA-256, so HEAD, 304 and 416 read no file, and a part is the assets' own 206 or, where
//   they honour no Range (wrangler's local assets), cut from the file as it streams.
// The Worker does not hash what it sends: a download's SHA-256 is checked by whoever downloads
// it, against latest.json (the client's --sha256 / --url).
import { answerFile, type FileAnswer } from '../contract/byte-ranges.ts';
import {
  type BucketDownload,
  type DownloadsListing,
  downloadAt,
  downloadEtag,
  publishedBundles,
} from '../contract/bucket-layout.ts';
import { DOWNLOADS_DIR, type Latest, PUBLISHED_BUNDLES } from '../contract/bundle-layout.ts';
import { CACHE_STATIC } from '../contract/headers.ts';

/** Answers a GET or HEAD of a bundle; undefined for any other path (a static asset as it is). */
export type DownloadServer = (request: Request, pathname: string) => Promise<Response | undefined>;

/** Reads once while it succeeds; a failed read is tried again by the next request. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().catch((error: unknown) => {
      reading = undefined;
      throw error;
    });
    return reading;
  };
}

/** The bundles latest.json names, as the assets serve them, by URL path. */
async function assetBundles(assets: Fetcher, origin: string): Promise<DownloadsListing> {
  const response = await assets.fetch(`${origin}/${PUBLISHED_BUNDLES}`);
  return response.ok ? publishedBundles((await response.json()) as Latest) : {};
}

/** The bundles in the bucket (the R2 mode): the bucket, and the deploy object's listing of them. */
export interface BucketBundles {
  bucket: R2Bucket;
  listing: DownloadsListing;
}

export function bundleDownloads(assets: Fetcher, origin: string, inBucket: BucketBundles | undefined): DownloadServer {
  const published = once(() => assetBundles(assets, origin));
  return async (request, pathname) => {
    if (!pathname.startsWith(`/${DOWNLOADS_DIR}/`)) return undefined;
    const stored = inBucket && downloadAt(inBucket.listing, pathname);
    if (inBucket && stored) return fromBucket(inBucket.bucket, stored, request);
    const asset = downloadAt(await published(), pathname);
    return asset && fromAssets(assets, asset, request);
  };
}

const answerTo = (request: Request, download: BucketDownload): FileAnswer =>
  answerFile(request.method, (name) => request.headers.get(name), download.size, downloadEtag(download));

/** The headers of a download beside the answer's: as the static assets send them, the ETag its SHA-256. */
function downloadHeaders(download: BucketDownload, answer: FileAnswer): Headers {
  const headers = new Headers({
    ETag: downloadEtag(download),
    'Content-Type': download.contentType,
    'Cache-Control': CACHE_STATIC,
  });
  for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
  return headers;
}

async function fromBucket(bucket: R2Bucket, download: BucketDownload, request: Request): Promise<Response> {
  const answer = answerTo(request, download);
  const headers = downloadHeaders(download, answer);
  // HEAD, 304 and 416 need nothing from the bucket: the listing states the size.
  if (!answer.bytes) return new Response(null, { status: answer.status, headers });
  const { start, end } = answer.bytes;
  const part = answer.status === 206 ? { range: { offset: start, length: end - start + 1 } } : {};
  const object = await bucket.get(download.key, part);
  if (!object) throw new Error(`${download.key} (${new URL(request.url).pathname}) is missing from the R2 bucket`);
  return new Response(object.body, { status: answer.status, headers });
}

async function fromAssets(assets: Fetcher, download: BucketDownload, request: Request): Promise<Response> {
  const answer = answerTo(request, download);
  const headers = downloadHeaders(download, answer);
  if (!answer.bytes) return new Response(null, { status: answer.status, headers });
  // The file with no condition of the client's: a part asks the assets for that range alone.
  const { start, end } = answer.bytes;
  const part = answer.status === 206;
  const file = await assets.fetch(request.url, part ? { headers: { Range: `bytes=${start}-${end}` } } : {});
  if (!file.body || (file.status !== 200 && file.status !== 206))
    throw new Error(`${new URL(request.url).pathname} could not be read from the assets (${file.status})`);
  // A stream of known length, so the part is sent with its Content-Length, not chunked.
  const body =
    part && file.status === 200
      ? file.body.pipeThrough(bytesBetween(start, end)).pipeThrough(new FixedLengthStream(end - start + 1))
      : file.body;
  return new Response(body, { status: answer.status, headers });
}

/** Passes on bytes start..end (inclusive) of a stream and drops the rest. */
function bytesBetween(start: number, end: number): TransformStream<Uint8Array, Uint8Array> {
  let position = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const from = Math.max(start - position, 0);
      const to = Math.min(end + 1 - position, chunk.length);
      position += chunk.length;
      if (from < to) controller.enqueue(chunk.subarray(from, to));
      if (position > end) controller.terminate();
    },
  });
}
