// The offline bundles at their /downloads/ URL, served by the Worker alike in both modes, as
// src/contract/byte-ranges.ts says (ETag from the SHA-256, Content-Length, a single byte range,
// 304, 412, 416), with the Content-Type and Cache-Control the static assets send:
// - in the R2 mode a bundle too large for a static asset is in the bucket; the deploy object
//   (src/contract/bucket-layout.ts), read once per isolate, lists them; a part is read from R2
//   by range, never the whole object;
// - any other bundle is a static asset; latest.json (read once per isolate) states its size and
//   SHA-256, so HEAD, 304, 412 and 416 read no file, and a part is the assets' own 206 or, where
//   they honour no Range (wrangler's local assets), cut from the file as it streams.
// Every other spelling of a bundle's path is a 307 to it, as the static assets answer one.
// The Worker does not hash what it sends: a download's SHA-256 is checked by whoever downloads
// it, against latest.json (the client's --sha256 / --url). What it can see before sending
// (an object or file missing, of another size, or whose SHA-256 R2 keeps is another) throws
// before any Response is made, so the Worker answers the contract's JSON 500, never a body
// that promises more than it holds.
import { answerFile, type FileAnswer } from '../contract/byte-ranges.ts';
import {
  type BucketDownload,
  type DownloadsListing,
  downloadAt,
  downloadEtag,
  mayNameDownload,
  publishedBundles,
} from '../contract/bucket-layout.ts';
import { type Latest, PUBLISHED_BUNDLES } from '../contract/bundle-layout.ts';
import { CACHE_STATIC } from '../contract/headers.ts';
import { hexOf } from '../contract/sha256.ts';
import { once } from '../edge/once.ts';

/** Answers a GET or HEAD of a bundle; undefined for any other path (a static asset as it is). */
export type DownloadServer = (request: Request, pathname: string) => Promise<Response | undefined>;

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
    // Most static paths can name no bundle: they cost no listing.
    if (!mayNameDownload(pathname)) return undefined;
    const stored = inBucket && downloadAt(inBucket.listing, pathname);
    const found = stored ?? downloadAt(await published(), pathname);
    if (!found) return undefined;
    if (found.type === 'redirect')
      return new Response(null, { status: 307, headers: { Location: `${found.path}${new URL(request.url).search}` } });
    return inBucket && stored
      ? fromBucket(inBucket.bucket, found.download, request)
      : fromAssets(assets, found.download, request);
  };
}

/** A download whose stored bytes are not what its listing states: the Worker's 500, `why` to its log. */
function unreadable(download: BucketDownload, why: string): Error {
  return new Error(`The download ${download.key} (${download.size} bytes listed) cannot be served: ${why}`);
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
  // HEAD, 304, 412 and 416 need nothing from the bucket: the listing states the size.
  if (!answer.bytes) return new Response(null, { status: answer.status, headers });
  const { start, end } = answer.bytes;
  const part = answer.status === 206 ? { range: { offset: start, length: end - start + 1 } } : {};
  // A range past the end of a shorter object is an error of the bucket's: it throws as it is.
  const object = await bucket.get(download.key, part);
  if (object === null) throw unreadable(download, 'the R2 bucket has no such object');
  const sha256 = object.checksums.sha256;
  const stored = sha256 ? hexOf(sha256) : download.sha256;
  if (object.size !== download.size || stored !== download.sha256) {
    await object.body.cancel();
    throw unreadable(download, `the R2 object has ${object.size} bytes, SHA-256 ${stored}`);
  }
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
  if (!file.body || (file.status !== 200 && file.status !== 206)) {
    await file.body?.cancel();
    throw unreadable(download, `the static assets answer ${file.status}`);
  }
  // The file's own size, where the assets state it: the whole file's length, or a part's total.
  const size =
    file.status === 206 ? file.headers.get('content-range')?.split('/')[1] : file.headers.get('content-length');
  if (size && size !== String(download.size)) {
    await file.body.cancel();
    throw unreadable(download, `the static asset has ${size} bytes`);
  }
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
