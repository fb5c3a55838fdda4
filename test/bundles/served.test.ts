// The offline bundles at their /downloads/ URL behave the same in every runtime: the Node
// server, the Worker with the bundles in its static assets, and the Worker in the R2 mode with
// R2_DOWNLOADS_ABOVE at 0, so the real bundles are R2 objects. One set of rules (the ETag is
// the bundle's SHA-256, HEAD states its size, a single byte range, 416, 304, 412, If-Range,
// every other spelling of the path a 307 to it), and the bytes hash to the SHA-256
// latest.json states, wherever they come from. A Range the rules would not honour gets the
// whole of any static file too.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Latest, PUBLISHED_BUNDLES } from '../../src/contract/bundle-layout.ts';
import { CACHE_STATIC, STATIC_METHODS } from '../../src/contract/headers.ts';
import { assetsWithoutApi, bucketPlan } from '../../src/cloudflare/bucket-objects.ts';
import { distDir, type Runtime, type RuntimeName, startRuntime } from '../support/runtimes.ts';

const latest = JSON.parse(readFileSync(join(distDir, PUBLISHED_BUNDLES), 'utf8')) as Latest;
const zip = latest.bundles.find((bundle) => bundle.format === 'zip');
if (!zip) throw new Error(`${PUBLISHED_BUNDLES} names no zip`);
const zipPath = `/downloads/${zip.name}`;
const zipBytes = readFileSync(join(distDir, 'downloads', zip.name));
const sha256 = (bytes: ArrayBuffer) => createHash('sha256').update(new Uint8Array(bytes)).digest('hex');

/** The bundles in R2 in the worker-r2 runtime: every one (R2_DOWNLOADS_ABOVE=0). */
const EVERY_BUNDLE = 0;

test('with R2_DOWNLOADS_ABOVE at 0 no bundle is among the static assets; latest.json and the page are', () => {
  const assets = assetsWithoutApi(distDir, bucketPlan(distDir, EVERY_BUNDLE));
  try {
    const staged = readdirSync(join(assets.dir, 'downloads'));
    for (const { name } of latest.bundles) expect(staged).not.toContain(name);
    expect(staged).toEqual(expect.arrayContaining(['latest.json', 'index.html']));
  } finally {
    assets.remove();
  }
});

const runtimes: readonly RuntimeName[] = ['node', 'worker', 'worker-r2'];

describe.each(runtimes)('%s runtime', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: ['downloads-token'], downloadsAbove: EVERY_BUNDLE });
  });
  afterAll(() => runtime?.close());

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${runtime.url}${path}`, { method, headers, redirect: 'manual' });

  test('HEAD states each bundle as latest.json does: its size, its SHA-256 as a strong ETag', async () => {
    for (const bundle of latest.bundles) {
      const response = await get(`/downloads/${bundle.name}`, {}, 'HEAD');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(bundle.size));
      expect(response.headers.get('etag')).toBe(`"${bundle.sha256}"`);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(response.headers.get('content-type')).toBe(
        bundle.format === 'zip' ? 'application/zip' : 'application/gzip',
      );
      expect(response.headers.get('cache-control')).toBe(CACHE_STATIC);
    }
  });

  test('the bytes of each bundle hash to the SHA-256 latest.json states', async () => {
    for (const bundle of latest.bundles) {
      const response = await get(`/downloads/${bundle.name}`);
      expect(response.status).toBe(200);
      expect(sha256(await response.arrayBuffer())).toBe(bundle.sha256);
    }
  });

  test('a single range is a 206 of those bytes, with Content-Range', async () => {
    const cases = [
      ['bytes=0-9', 0, 9],
      ['bytes=-10', zip.size - 10, zip.size - 1],
      [`bytes=${zip.size - 42}-`, zip.size - 42, zip.size - 1],
    ] as const;
    for (const [range, start, end] of cases) {
      const response = await get(zipPath, { Range: range });
      expect(response.status, range).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${zip.size}`);
      expect(response.headers.get('content-length')).toBe(String(end - start + 1));
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(zipBytes.subarray(start, end + 1)));
    }
  });

  test('a range past the end is a 416 with Content-Range: bytes */<size> and no body', async () => {
    const response = await get(zipPath, { Range: `bytes=${zip.size}-` });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${zip.size}`);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  test('several ranges, or a malformed Range, get the whole file', async () => {
    for (const range of ['bytes=0-1,5-6', 'bytes=x-y', 'bytes=9-1']) {
      const response = await get(zipPath, { Range: range });
      expect(response.status, range).toBe(200);
      expect(sha256(await response.arrayBuffer())).toBe(zip.sha256);
    }
  });

  test('If-None-Match naming the ETag is a 304 with no body', async () => {
    const response = await get(zipPath, { 'If-None-Match': `"${zip.sha256}"` });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(`"${zip.sha256}"`);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  test('If-Range naming the ETag gets the part; naming another, the whole file', async () => {
    expect((await get(zipPath, { Range: 'bytes=0-9', 'If-Range': `"${zip.sha256}"` })).status).toBe(206);
    const changed = await get(zipPath, { Range: 'bytes=0-9', 'If-Range': '"another"' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('content-length')).toBe(String(zip.size));
    await changed.arrayBuffer();
  });

  test('another method is a 405 naming GET and HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await get(zipPath, {}, method);
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe(STATIC_METHODS);
      await response.arrayBuffer();
    }
  });

  test('latest.json and the downloads page are the built files, unchanged', async () => {
    expect(await (await get(`/${PUBLISHED_BUNDLES}`)).text()).toBe(
      readFileSync(join(distDir, PUBLISHED_BUNDLES), 'utf8'),
    );
    const page = await get('/downloads/');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(readFileSync(join(distDir, 'downloads', 'index.html'), 'utf8'));
  });

  test('another case or a trailing slash is the 404; a spelling the URL parser resolves is the file', async () => {
    const upper = zip.name.toUpperCase();
    for (const path of [`/DOWNLOADS/${zip.name}`, `/downloads/${upper}`, `/Downloads/${zip.name}`, `${zipPath}/`]) {
      const response = await get(path, {}, 'HEAD');
      expect(response.status, path).toBe(404);
    }
    for (const path of [`/downloads/%2e/${zip.name}`, `/downloads/x/%2e%2e/${zip.name}`]) {
      const response = await get(path, {}, 'HEAD');
      expect(response.status, path).toBe(200);
      expect(response.headers.get('etag'), path).toBe(`"${zip.sha256}"`);
    }
  });

  test('every other spelling of the path is a 307 to the path itself, its query kept', async () => {
    const spellings = [
      `/downloads//${zip.name}`,
      `/downloads///${zip.name}`,
      `//downloads/${zip.name}`,
      `/downloads%2f${zip.name}`,
      `/downloads%2F${zip.name}`,
      `/%64ownloads/${zip.name}`,
      `/downloads/%74${zip.name.slice(1)}`,
      `/downloads/x%2f..%2f${zip.name}`,
    ];
    for (const method of ['GET', 'HEAD'])
      for (const path of spellings) {
        const response = await get(path, { Range: 'bytes=0-1,5-6', 'If-None-Match': `"${zip.sha256}"` }, method);
        expect(response.status, `${method} ${path}`).toBe(307);
        const location = new URL(response.headers.get('location') ?? '', runtime.url);
        expect(location.pathname, path).toBe(zipPath);
        await response.arrayBuffer();
      }
    const queried = await get(`/downloads//${zip.name}?mirror=1`);
    expect(new URL(queried.headers.get('location') ?? '', runtime.url).search).toBe('?mirror=1');
  });

  test('If-Match naming another ETag, or this one weakly, is a 412 with no body; naming it, the answer', async () => {
    for (const ifMatch of ['"another"', `W/"${zip.sha256}"`]) {
      const response = await get(zipPath, { 'If-Match': ifMatch, Range: 'bytes=0-9' });
      expect(response.status, ifMatch).toBe(412);
      expect((await response.arrayBuffer()).byteLength).toBe(0);
    }
    for (const ifMatch of [`"${zip.sha256}"`, '*']) {
      const response = await get(zipPath, { 'If-Match': ifMatch, Range: 'bytes=0-9' });
      expect(response.status, ifMatch).toBe(206);
      await response.arrayBuffer();
    }
  });

  test('HEAD with a Range is the 200 of the whole file (Range is for GET alone)', async () => {
    for (const range of ['bytes=0-9', `bytes=${zip.size}-`]) {
      const response = await get(zipPath, { Range: range }, 'HEAD');
      expect(response.status, range).toBe(200);
      expect(response.headers.get('content-length'), range).toBe(String(zip.size));
      expect(response.headers.get('content-range'), range).toBeNull();
    }
  });

  test('another range unit is ignored: the whole file, of a bundle and of any static file', async () => {
    const page = readFileSync(join(distDir, 'openapi.json'));
    for (const range of ['items=0-1', 'bytes=0-1,5-6', 'bytes=x-y']) {
      const bundle = await get(zipPath, { Range: range });
      expect(bundle.status, range).toBe(200);
      expect(sha256(await bundle.arrayBuffer()), range).toBe(zip.sha256);
      const file = await get('/openapi.json', { Range: range });
      expect(file.status, range).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(page), range).toBe(true);
    }
    const head = await get('/openapi.json', { Range: 'bytes=0-1' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-range')).toBeNull();
  });
});
