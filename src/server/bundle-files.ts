// The offline bundles of dist/downloads/, served by the Node server as the Worker serves them
// (src/worker/downloads.ts): latest.json states each one's size and SHA-256, the SHA-256 is its
// ETag, and src/contract/byte-ranges.ts decides 200, 206, 304 or 416. serve-handler would
// answer a few Range headers otherwise (several ranges: the first; a malformed one: 416; an
// If-Range that no longer matches: the part), so the same URL would differ by runtime.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { downloadAt, downloadEtag, type DownloadsListing, publishedBundles } from '../contract/bucket-layout.ts';
import { DOWNLOADS_DIR, type Latest, PUBLISHED_BUNDLES } from '../contract/bundle-layout.ts';
import { answerFile } from '../contract/byte-ranges.ts';
import { CACHE_STATIC } from '../contract/headers.ts';

/** Sends the bundle `path` names and resolves true once sent; false for any other path. */
export type BundleFiles = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;

/** The bundles of the build in `root` (dist/), by what latest.json states of them; none without it. */
export async function bundleFiles(root: string): Promise<BundleFiles> {
  const listing: DownloadsListing = await readFile(join(root, PUBLISHED_BUNDLES), 'utf8').then(
    (text) => publishedBundles(JSON.parse(text) as Latest),
    () => ({}),
  );
  return async (request, response, path) => {
    const pathname = path.split('?', 1)[0] ?? path;
    const bundle = pathname.startsWith(`/${DOWNLOADS_DIR}/`) ? downloadAt(listing, pathname) : undefined;
    if (!bundle) return false;
    const etag = downloadEtag(bundle);
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : null;
    };
    const answer = answerFile(request.method ?? 'GET', header, bundle.size, etag);
    response.writeHead(answer.status, {
      ETag: etag,
      'Content-Type': bundle.contentType,
      'Cache-Control': CACHE_STATIC,
      ...answer.headers,
    });
    if (!answer.bytes) {
      response.end();
      return true;
    }
    const file = join(root, DOWNLOADS_DIR, basename(decodeURIComponent(pathname)));
    // A read error once the headers are out cuts the response short: the client sees it broken.
    await pipeline(createReadStream(file, answer.bytes), response).catch(() => response.destroy());
    return true;
  };
}
