// The offline bundles of dist/downloads/, served by the Node server as the Worker serves them
// (src/worker/downloads.ts): latest.json states each one's size and SHA-256, the SHA-256 is its
// ETag, and src/contract/byte-ranges.ts decides 200, 206, 304, 412 or 416. serve-handler would
// answer a few Range headers otherwise (several ranges: the first; a malformed one: 416; an
// If-Range that no longer matches: the part), so the same URL would differ by runtime; every
// other spelling of a bundle's path is a 307 to it, as the Worker's static assets answer.
import { type FileHandle, open, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { downloadAt, downloadEtag, type DownloadsListing, publishedBundles } from '../contract/bucket-layout.ts';
import { DOWNLOADS_DIR, type Latest, PUBLISHED_BUNDLES } from '../contract/bundle-layout.ts';
import { answerFile } from '../contract/byte-ranges.ts';
import { CACHE_STATIC } from '../contract/headers.ts';
import { headersOf } from './node-adapter.ts';

/** Sends the bundle `path` names and resolves true once sent; false for any other path. */
export type BundleFiles = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;

/** The bundles of the build in `root` (dist/), by what latest.json states of them; none without it. */
export async function bundleFiles(root: string): Promise<BundleFiles> {
  const listing: DownloadsListing = await readFile(join(root, PUBLISHED_BUNDLES), 'utf8').then(
    (text) => publishedBundles(JSON.parse(text) as Latest),
    () => ({}),
  );
  return async (request, response, path) => {
    const query = path.indexOf('?');
    const pathname = query < 0 ? path : path.slice(0, query);
    const found = downloadAt(listing, pathname);
    if (!found) return false;
    if (found.type === 'redirect') {
      response.writeHead(307, { Location: query < 0 ? found.path : `${found.path}${path.slice(query)}` }).end();
      return true;
    }
    const bundle = found.download;
    const etag = downloadEtag(bundle);
    const answer = answerFile(request.method ?? 'GET', headersOf(request), bundle.size, etag);
    const headers = {
      ETag: etag,
      'Content-Type': bundle.contentType,
      'Cache-Control': CACHE_STATIC,
      ...answer.headers,
    };
    if (!answer.bytes) {
      response.writeHead(answer.status, headers).end();
      return true;
    }
    // Opened, and its size checked, before any header is written: a file gone or not the one
    // latest.json states throws, which the server answers with the contract's JSON 500, never
    // with a body cut short.
    const file = await openListed(join(root, DOWNLOADS_DIR, basename(pathname)), bundle.size);
    // A client that left while the file was opened: nothing to send, and the file closes now.
    if (response.destroyed) {
      await file.close();
      return true;
    }
    response.writeHead(answer.status, headers);
    const { start, end } = answer.bytes;
    // A read error, or a file cut shorter since it was opened, once the headers are out: only a
    // cut connection tells the client its body is incomplete.
    await pipeline(file.createReadStream({ start, end }), ofLength(end - start + 1), response).catch(() =>
      response.destroy(),
    );
    return true;
  };
}

/** Passes bytes on, and fails at their end if they were not `length`: a file cut short since it was opened. */
function ofLength(length: number): Transform {
  let passed = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      passed += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      done(passed === length ? null : new Error(`the file gave ${passed} of its ${length} bytes`));
    },
  });
}

/** The file at `path`, open, if it has the `size` bytes latest.json states; an error naming what it has if not. */
async function openListed(path: string, size: number): Promise<FileHandle> {
  const file = await open(path);
  const stats = await file.stat().catch(async (error: unknown) => {
    await file.close();
    throw error;
  });
  if (stats.size === size) return file;
  await file.close();
  throw new Error(`${path} has ${stats.size} bytes where ${PUBLISHED_BUNDLES} states ${size}`);
}
