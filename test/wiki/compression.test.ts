// The Node server sends the wiki's text files (pages, styles, scripts, Pagefind's) compressed as
// the API's bodies are: br or gzip by Accept-Encoding (the rule of src/edge/negotiation.ts), Vary:
// Accept-Encoding, an ETag of each encoding's own, and the same bytes once decoded. A Range, an
// identity request and the offline bundles get the file as it is. Read on the wire (fetch would
// decode), against the files of dist/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Latest, PUBLISHED_BUNDLES } from '../../src/contract/bundle-layout.ts';
import { decodeBody } from '../support/builds.ts';
import { rawRequest } from '../support/http.ts';
import { distDir, type Runtime, startRuntime } from '../support/runtimes.ts';
import { PAGES } from '../support/wiki-pages.ts';

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startRuntime('node', { tokens: ['compression-token'] });
});
afterAll(() => runtime?.close());

const stylesheet = readdirSync(join(distDir, '_astro')).find((name) => name.endsWith('.css'));
const script = readdirSync(join(distDir, '_astro')).find((name) => name.endsWith('.js'));

/** A file of each text kind the wiki serves, by URL, with the file that holds its bytes. */
const TEXT_FILES = [
  ...PAGES.filter((page) => !page.path.includes('?') && page.name !== 'page not found').map((page) => ({
    target: page.path,
    file: join(page.path, 'index.html'),
  })),
  { target: `/_astro/${stylesheet}`, file: `_astro/${stylesheet}` },
  { target: `/_astro/${script}`, file: `_astro/${script}` },
  { target: '/pagefind/pagefind-ui.js', file: 'pagefind/pagefind-ui.js' },
  { target: '/pagefind/pagefind-ui.css', file: 'pagefind/pagefind-ui.css' },
  { target: '/planner/data.json', file: 'planner/data.json' },
  { target: '/changes/atom.xml', file: 'changes/atom.xml' },
  { target: '/favicon.svg', file: 'favicon.svg' },
];

const get = (target: string, headers: [string, string][], method = 'GET') =>
  rawRequest(runtime.url, { method, target, headers });

describe.each([
  ['br', 'br'],
  ['gzip', 'gzip'],
  ['identity', null],
  ['gzip, deflate, br', 'gzip'],
  ['br;q=0.5, gzip;q=0.9', 'gzip'],
  ['br, gzip;q=0', 'br'],
  ['deflate', null],
] as const)('Accept-Encoding: %s', (acceptEncoding, expected) => {
  test.for(TEXT_FILES)(
    `$target is sent ${expected ?? 'as it is'}, and decodes to its file's bytes`,
    async ({ target, file }) => {
      const response = await get(target, [['Accept-Encoding', acceptEncoding]]);
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding'] ?? null).toBe(expected);
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(Number(response.headers['content-length'])).toBe(response.body.length);
      const bytes = readFileSync(join(distDir, file));
      expect(decodeBody(response.body, response.headers['content-encoding']).equals(bytes)).toBe(true);
      if (expected) expect(response.body.length).toBeLessThan(bytes.length);
    },
  );

  test.for(TEXT_FILES)(
    '$target carries the headers of the file as it is: the security headers, its cache rule',
    async ({ target }) => {
      const [sent, asItIs] = await Promise.all([
        get(target, [['Accept-Encoding', acceptEncoding]]),
        get(target, [['Accept-Encoding', 'identity']]),
      ]);
      expect(pick(sent.headers)).toEqual(pick(asItIs.headers));
      expect(sent.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    },
  );
});

/** The headers that do not depend on the encoding. */
const SAME_IN_EVERY_ENCODING = [
  'content-type',
  'cache-control',
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'vary',
];
const pick = (headers: Record<string, string>) =>
  Object.fromEntries(SAME_IN_EVERY_ENCODING.map((name) => [name, headers[name] ?? null]));

test('each encoding has an ETag of its own, and If-None-Match naming it is a 304 with that ETag', async () => {
  const target = '/trees/oak-tree/';
  const tags = new Map<string, string>();
  for (const encoding of ['br', 'gzip', 'identity']) {
    const response = await get(target, [['Accept-Encoding', encoding]]);
    tags.set(encoding, response.headers.etag ?? '');
    const again = await get(target, [
      ['Accept-Encoding', encoding],
      ['If-None-Match', response.headers.etag ?? ''],
    ]);
    expect({ encoding, status: again.status, body: again.body.length }).toEqual({ encoding, status: 304, body: 0 });
  }
  expect(new Set(tags.values()).size).toBe(3);
  // A copy in another encoding is not the one asked for: the whole answer, in the encoding asked.
  const other = await get(target, [
    ['Accept-Encoding', 'gzip'],
    ['If-None-Match', tags.get('br') ?? ''],
  ]);
  expect({ status: other.status, encoding: other.headers['content-encoding'], etag: other.headers.etag }).toEqual({
    status: 200,
    encoding: 'gzip',
    etag: tags.get('gzip'),
  });
});

test('a compressed 304 carries its ETag, Vary and the wiki headers of the file', async () => {
  const target = `/_astro/${stylesheet}`;
  const first = await get(target, [['Accept-Encoding', 'br']]);
  const again = await get(target, [
    ['Accept-Encoding', 'br'],
    ['If-None-Match', first.headers.etag ?? ''],
  ]);
  expect(again.status).toBe(304);
  expect(again.headers.etag).toBe(first.headers.etag);
  expect(again.headers.vary).toBe('Accept-Encoding');
  expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable');
});

test('HEAD states the compressed length and sends no body', async () => {
  const get = await rawRequest(runtime.url, { target: '/planner/', headers: [['Accept-Encoding', 'br']] });
  const head = await rawRequest(runtime.url, {
    method: 'HEAD',
    target: '/planner/',
    headers: [['Accept-Encoding', 'br']],
  });
  expect(head.status).toBe(200);
  expect(head.headers['content-encoding']).toBe('br');
  expect(head.headers['content-length']).toBe(String(get.body.length));
  expect(head.body.length).toBe(0);
});

test('a Range is answered from the file as it is, whatever Accept-Encoding says', async () => {
  const response = await get('/trees/oak-tree/', [
    ['Accept-Encoding', 'br, gzip'],
    ['Range', 'bytes=0-9'],
  ]);
  expect(response.status).toBe(206);
  expect(response.headers['content-encoding']).toBeUndefined();
  expect(response.body.equals(readFileSync(join(distDir, 'trees/oak-tree/index.html')).subarray(0, 10))).toBe(true);
});

test('the offline bundles are sent as they are, never compressed again', async () => {
  const latest = JSON.parse(readFileSync(join(distDir, PUBLISHED_BUNDLES), 'utf8')) as Latest;
  for (const bundle of latest.bundles) {
    const response = await get(`/downloads/${bundle.name}`, [['Accept-Encoding', 'br, gzip']]);
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body.length).toBe(bundle.size);
  }
});

test('a redirect to the canonical path and a page not found are never compressed', async () => {
  const redirect = await get('/trees/oak-tree/index.html', [['Accept-Encoding', 'br']]);
  expect(redirect.status).toBe(307);
  expect(redirect.headers['content-encoding']).toBeUndefined();
  const missing = await get('/no/such/page/', [['Accept-Encoding', 'br']]);
  expect(missing.status).toBe(404);
  const hidden = await get('/_headers', [['Accept-Encoding', 'br']]);
  expect(hidden.status).toBe(404);
});
