// The wiki: every path the edge core calls static, served from dist/ by serve-handler.
import type { lstat as lstatWithCallback } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import serveHandler from 'serve-handler';

/**
 * lstat for the static site: a path no file can have (a NUL byte, a name too long) is simply
 * not there, so serve-handler answers 404 rather than 500. (Its types name the callback
 * lstat; it awaits a promise.)
 */
const lstatOrNotFound = (async (path: string) => {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ENAMETOOLONG') throw Object.assign(new Error(`${code}: no such file`), { code: 'ENOENT' });
    throw error;
  }
}) as unknown as typeof lstatWithCallback;


export function staticSite(distDir: string): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return (request, response) => serveHandler(request, response, { public: distDir, directoryListing: false, etag: true }, { lstat: lstatOrNotFound });
}
