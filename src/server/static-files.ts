// The file system serve-handler sees, made for one response: the API folder and the hidden
// files are not there whatever path reaches them, and every file stream is closed with its
// response (or at once, if the response closed first), so no client (one that drops a
// connection mid-pipeline, say) can leave a file open or make a stream's error throw in the
// process.
import { createReadStream, openSync, type ReadStream, type Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { relative, sep } from 'node:path';
import { API_DIR } from '../contract/paths.ts';

/** The methods serve-handler takes in place of node:fs, as it calls them (it awaits what they return). */
export interface FileMethods {
  lstat: (path: string) => Promise<Stats>;
  realpath: (path: string) => Promise<string>;
  createReadStream: (path: string, options?: { start?: number; end?: number }) => ReadStream;
}

const notThere = (why: string) => Object.assign(new Error(`${why}: no such file`), { code: 'ENOENT' });

/**
 * Whether `path` (absolute, as serve-handler resolves it below `root`) is in the API folder, in
 * any letter case (a case-insensitive file system would open it): it is served only through
 * the edge, however the request spelled it.
 */
export function inApiFolder(root: string, path: string): boolean {
  return relative(root, path).split(sep, 1)[0]?.toLowerCase() === API_DIR;
}

/**
 * The file system of one response. A file is opened before its stream is handed over, so a
 * file that vanished (or a process out of descriptors) is an error serve-handler answers with
 * 500 before any header is sent; serve-handler also hashes a file for its ETag through a
 * stream it must get at once, so the open cannot wait on a promise. Once open, the file reads
 * to its end even if renamed away; a read error after the headers cuts that response short.
 */
export function fileMethods(root: string, hidden: ReadonlySet<string>, response: ServerResponse): FileMethods {
  const refused = (path: string) => hidden.has(path) || inApiFolder(root, path);
  return {
    lstat: async (path) => {
      if (refused(path)) throw notThere('NOT_SERVED');
      try {
        return await lstat(path);
      } catch (error) {
        // A path no file can have (a NUL byte, a name too long) is simply not there: 404, not 500.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ENAMETOOLONG') throw notThere(code);
        throw error;
      }
    },
    realpath: async (path) => {
      const real = await realpath(path);
      if (refused(real)) throw notThere('NOT_SERVED');
      return real;
    },
    createReadStream: (path, options = {}) => {
      if (refused(path)) throw notThere('NOT_SERVED');
      const stream = createReadStream(path, { ...options, fd: openSync(path, 'r') });
      // serve-handler pipes without an error handler and leaves unused streams open (a 304,
      // a response whose connection closed): the response's end closes its streams.
      stream.on('error', () => response.destroy());
      // A client that left while serve-handler looked the file up has closed the response
      // already, and its 'close' does not come again: the file is closed now.
      if (response.destroyed) stream.destroy();
      else response.once('close', () => stream.destroy());
      return stream;
    },
  };
}
