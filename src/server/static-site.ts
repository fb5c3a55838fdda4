// The wiki: every path the edge core calls static, served from dist/ by serve-handler, with
// the header rules of dist/_headers (Cloudflare's format, so the Worker's assets agree); its
// text files compressed as the client accepts (static-text.ts); the offline bundles as the
// Worker serves them (bundle-files.ts).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute, join, relative, resolve } from 'node:path';
import serveHandler from 'serve-handler';
import { ASSETS_IGNORE_FILE } from '../contract/build-files.ts';
import { honouredRange } from '../contract/byte-ranges.ts';
import { ifNoneMatchHits } from '../contract/entity-tags.ts';
import { decodeSitePath, encodeSitePath, sitePath } from '../contract/site-paths.ts';
import { chooseEncoding } from '../edge/negotiation.ts';
import { bundleFiles } from './bundle-files.ts';
import { headersOf, rawHeader } from './node-adapter.ts';
import { type FileMethods, fileMethods } from './static-files.ts';
import { type TextFile, type TextVariant, textFileAt, textVariants } from './static-text.ts';

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

/** A rule's path as a pattern: "**" matches anything, "*" anything but a slash (as serve-handler's glob). */
function rulePattern(source: string): RegExp {
  const parts = source.split('**').map((part) => part.replace(/[.+?^$()|[\]{}\\]/g, '\\$&').replaceAll('*', '[^/]*'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/** The headers `rules` give the file at a site path ("/_astro/x.css"): every matching rule's, a later one winning. */
export function ruleHeaders(rules: readonly HeaderRule[]): (sitePath: string) => Record<string, string> {
  const patterns = rules.map((rule) => ({ pattern: rulePattern(rule.source), headers: rule.headers }));
  return (sitePath) => {
    const headers: Record<string, string> = {};
    for (const { pattern, headers: set } of patterns)
      if (pattern.test(sitePath)) for (const { key, value } of set) headers[key] = value;
    return headers;
  };
}

/** Serves one request; `path` is the path and query the edge decided on (WHATWG-normalised). */
export type StaticSite = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<void>;

/** serve-handler's methods; its types name node:fs's callback functions, though it awaits what they return. */
type HandlerMethods = Parameters<typeof serveHandler>[3];

export async function staticSite(distDir: string): Promise<StaticSite> {
  // serve-handler resolves paths below the absolute root: the API folder check compares with it.
  const root = resolve(distDir);
  const headersFile = join(root, '_headers');
  const rules = await readFile(headersFile, 'utf8').then(parseHeaderRules, () => []);
  // Cloudflare does not serve these either.
  const hidden = new Set([headersFile, join(root, ASSETS_IGNORE_FILE)]);
  // Paths resolve by src/contract/site-paths.ts, as the Worker's assets do: serve-handler gets the
  // file's own path, so its clean URLs (301s without the site's headers) are off.
  const config = { public: root, directoryListing: false, cleanUrls: false, etag: true, headers: rules };
  const bundles = await bundleFiles(root);
  const variants = textVariants();
  const headersOfFile = ruleHeaders(rules);
  const serve = async (request: IncomingMessage, response: ServerResponse, path: string) => {
    if (await bundles(request, response, path)) return;
    const files = fileMethods(root, hidden, response);
    const query = path.indexOf('?');
    const [pathname, search] = query < 0 ? [path, ''] : [path.slice(0, query), path.slice(query)];
    const resolved = await sitePath(pathname, search, (sitePath) => isFileAt(root, sitePath, files.lstat));
    if ('redirect' in resolved) {
      const headers = { ...headersOfFile(decodeSitePath(pathname)), Location: resolved.redirect, 'Content-Length': 0 };
      response.writeHead(307, headers).end();
      return;
    }
    // The file the path names, or (for the 404 page) the path as it came.
    const served = 'file' in resolved ? encodeSitePath(resolved.file) + search : path;
    // A Range serve-handler would answer otherwise than src/contract/byte-ranges.ts (another
    // unit: 416; several ranges: the first; If-Range: unread; on HEAD: 206) is dropped: the whole file.
    if (request.headers.range !== undefined && !honouredRange(request.method ?? 'GET', headersOf(request)))
      delete request.headers.range;
    const text = await textFileAt(root, served, files.lstat);
    if (text) {
      // Every answer of a text file, compressed or not, depends on Accept-Encoding.
      response.setHeader('Vary', 'Accept-Encoding');
      const encoding = chooseEncoding(rawHeader(request.rawHeaders, 'accept-encoding'));
      // A range is of the file as it is: serve-handler's.
      const variant =
        encoding === 'identity' || request.headers.range !== undefined ? undefined : await variants(text, encoding);
      if (variant) return sendText(request, response, text, variant, encoding, headersOfFile(text.sitePath));
    }
    // serve-handler parses and decodes the URL again: it gets the path the edge decided on, so
    // both act on one path (it would read "/api%2fx/../trees" as "/api/trees").
    request.url = served;
    return serveHandler(request, response, config, files as unknown as HandlerMethods);
  };
  return (request, response, path) => {
    if (response.socket) return serve(request, response, path);
    // A pipelined request waits for the responses before it on its connection: its file is
    // opened when its turn comes, so a client's backlog holds no descriptor or buffer.
    return new Promise((served, failed) =>
      response.once('socket', () => serve(request, response, path).then(served, failed)),
    );
  };
}

/** Whether the decoded site path is a file below `root` the site serves (not hidden, not the API's, no link). */
async function isFileAt(root: string, sitePath: string, lstat: FileMethods['lstat']): Promise<boolean> {
  const path = join(root, sitePath);
  const fromRoot = relative(root, path);
  if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) return false;
  return lstat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

/** A text file in the encoding chosen, with the headers serve-handler would send; 304 when If-None-Match names it. */
function sendText(
  request: IncomingMessage,
  response: ServerResponse,
  file: TextFile,
  variant: TextVariant,
  encoding: string,
  fromRules: Record<string, string>,
): void {
  const validators = { ...fromRules, ETag: variant.etag };
  if (ifNoneMatchHits(rawHeader(request.rawHeaders, 'if-none-match'), variant.etag)) {
    response.writeHead(304, validators).end();
    return;
  }
  response.writeHead(200, {
    ...validators,
    'Content-Type': file.contentType,
    'Content-Encoding': encoding,
    'Content-Length': variant.bytes.byteLength,
  });
  if (request.method === 'HEAD') response.end();
  else response.end(variant.bytes);
}

/**
 * Counts the body bytes `response` is given from now on, through write and end: serve-handler
 * pipes a file into the response and sets its headers through writeHead, which getHeader does
 * not see, so the count is taken from what it writes. (Node sends no body for HEAD: the
 * caller counts 0 there.)
 */
export function countBodyBytes(response: ServerResponse): () => number {
  let bytes = 0;
  const count = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      bytes += Buffer.byteLength(chunk, Buffer.isEncoding(String(encoding)) ? (encoding as BufferEncoding) : 'utf8');
    else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
  };
  const { write, end } = response;
  response.write = function (this: ServerResponse, ...args: unknown[]) {
    count(args[0], args[1]);
    return (write as (...args: unknown[]) => boolean).apply(this, args);
  };
  response.end = function (this: ServerResponse, ...args: unknown[]) {
    count(args[0], args[1]);
    return (end as (...args: unknown[]) => ServerResponse).apply(this, args);
  };
  return () => bytes;
}
