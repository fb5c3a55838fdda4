// The wiki: every path the edge core calls static, served from dist/ by serve-handler, with
// the header rules of dist/_headers (Cloudflare's format, so the Worker's assets agree).
import type { lstat as lstatWithCallback } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import serveHandler from 'serve-handler';
import { ASSETS_IGNORE_FILE } from '../contract/build-files.ts';

export interface HeaderRule {
  /** A serve-handler glob, e.g. "/_astro/**". */
  source: string;
  headers: { key: string; value: string }[];
}

/**
 * The rules of a _headers file: a line with a path ("/_astro/*", where * matches anything,
 * slashes included), then indented "Name: value" lines; # starts a comment.
 */
export function parseHeaderRules(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      rules.push({ source: line.trim().replaceAll('*', '**'), headers: [] });
      continue;
    }
    const colon = line.indexOf(':');
    const rule = rules.at(-1);
    if (rule && colon > 0) rule.headers.push({ key: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return rules;
}

/**
 * lstat for the static site: a path no file can have (a NUL byte, a name too long) is simply
 * not there, so serve-handler answers 404 rather than 500; nor is a file of `hidden` (the
 * _headers and .assetsignore files, which Cloudflare does not serve either). (Its types name the callback lstat;
 * it awaits a promise.)
 */
function lstatOrNotFound(hidden: ReadonlySet<string>): typeof lstatWithCallback {
  const notThere = (code: string) => Object.assign(new Error(`${code}: no such file`), { code: 'ENOENT' });
  return (async (path: string) => {
    if (hidden.has(path)) throw notThere('HIDDEN');
    try {
      return await lstat(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ENAMETOOLONG') throw notThere(code);
      throw error;
    }
  }) as unknown as typeof lstatWithCallback;
}

export type StaticSite = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

export async function staticSite(distDir: string): Promise<StaticSite> {
  const headersFile = join(distDir, '_headers');
  const rules = await readFile(headersFile, 'utf8').then(parseHeaderRules, () => []);
  const methods = { lstat: lstatOrNotFound(new Set([headersFile, join(distDir, ASSETS_IGNORE_FILE)])) };
  return (request, response) =>
    serveHandler(request, response, { public: distDir, directoryListing: false, etag: true, headers: rules }, methods);
}
