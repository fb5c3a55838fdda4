// The R2 mode's bucket layout (src/contract/bucket-layout.ts), one rule per test: where each
// object lives, what a reader accepts as a scope root or a deploy object (and the error naming
// what was wrong otherwise), and how a download is found by its URL path. The keys and texts
// expected are written out here, as docs/deploy.md states them.
import { describe, expect, test } from 'vitest';
import {
  type BucketDownload,
  bucketKey,
  bundleContentType,
  checkDeployObject,
  checkScopeRoot,
  deployKey,
  downloadAt,
  mayNameDownload,
  downloadEtag,
  downloadKey,
  downloadPath,
  publishedBundles,
  scopeName,
  scopeRootKey,
  shardKey,
} from '../../src/contract/bucket-layout.ts';
import type { Latest, LatestBundle } from '../../src/contract/bundle-layout.ts';

const A = 'a'.repeat(64);
const B = '0123456789abcdef'.repeat(4);

describe('the keys of the bucket', () => {
  test('a body keeps its name under bodies/; no other file of dist/ has a key of its own', () => {
    expect(bucketKey(`api/bodies/${A}`)).toBe(`bodies/${A}`);
    for (const other of ['api/bodies.pack', 'api/index/current/root.json', 'index.html', `x/api/bodies/${A}`])
      expect(bucketKey(other), other).toBeUndefined();
  });

  test('shards, scope roots and downloads by their SHA-256; a deploy object by API_INDEX, as JSON', () => {
    expect(shardKey(A)).toBe(`index/shards/${A}`);
    expect(scopeRootKey(A)).toBe(`index/roots/${A}`);
    expect(downloadKey(A)).toBe(`downloads/${A}`);
    expect(deployKey('0123456789abcdef0123456789abcdef')).toBe('index/deploys/0123456789abcdef0123456789abcdef.json');
  });

  test('a scope is named current for the current data, else by its release id', () => {
    expect(scopeName(undefined)).toBe('current');
    expect(scopeName('2026-11-01')).toBe('2026-11-01');
  });
});

describe('a scope root as read from the bucket', () => {
  const root = { version: 'v1', shards: 2, nearGroup: 3 };

  test('its root.json and the SHA-256 of each shard are taken as they are', () => {
    expect(checkScopeRoot({ root, shards: [A, B] }, 'index/roots/x')).toEqual({ root, shards: [A, B] });
  });

  test('one that is no object, or whose root is no routing root: an error naming the object', () => {
    for (const value of [null, 'root', [root], { shards: [A, B] }, { root: { version: 'v1' }, shards: [A, B] }])
      expect(() => checkScopeRoot(value, 'index/roots/x'), JSON.stringify(value)).toThrow(
        'index/roots/x is not the root of a routing index.',
      );
  });

  test('shards missing, too few or too many, or one not a lower-case hex SHA-256: an error naming the count', () => {
    const message = 'index/roots/x does not list the SHA-256 of each of its 2 shards.';
    for (const shards of [
      undefined,
      `${A}${B}`,
      [A],
      [A, B, B],
      [A, 'b'.repeat(63)],
      [A, `${B}0`],
      [A, B.toUpperCase()],
      [A, `-${B.slice(1)}`],
      [A, 5],
    ])
      expect(() => checkScopeRoot({ root, shards }, 'index/roots/x'), JSON.stringify(shards)).toThrow(message);
  });
});

describe('a deploy object as read from the bucket', () => {
  test('its scopes, each named by its root’s SHA-256, and its downloads are taken as they are', () => {
    const download: BucketDownload = { key: `downloads/${A}`, size: 3, sha256: A, contentType: 'application/zip' };
    const deploy = {
      scopes: { current: A, '2026-11-01': B },
      downloads: { '/downloads/treefarm-data-v1.zip': download },
    };
    expect(checkDeployObject(deploy, 'index/deploys/x.json')).toEqual(deploy);
    expect(checkDeployObject({ scopes: {}, downloads: {} }, 'index/deploys/x.json')).toEqual({
      scopes: {},
      downloads: {},
    });
  });

  test('scopes that are no object, or a scope not named by a SHA-256: an error naming the object', () => {
    const message = "index/deploys/x.json does not name each scope's root by its SHA-256.";
    const badScopes = [
      undefined,
      null,
      5,
      '',
      [A],
      { current: 'b'.repeat(63) },
      { current: A, old: [B] },
      { current: B.toUpperCase() },
    ];
    for (const scopes of badScopes)
      expect(
        () => checkDeployObject({ scopes, downloads: {} }, 'index/deploys/x.json'),
        JSON.stringify(scopes),
      ).toThrow(message);
    expect(() => checkDeployObject(null, 'index/deploys/x.json')).toThrow(message);
  });

  test('downloads that are no object: an error naming the object', () => {
    for (const downloads of [undefined, null, 5, '', []])
      expect(() => checkDeployObject({ scopes: { current: A }, downloads }, 'index/deploys/x.json')).toThrow(
        'index/deploys/x.json does not list its downloads.',
      );
  });
});

describe('the downloads a runtime serves itself', () => {
  test('an offline bundle has its format’s Content-Type; any other file of the downloads folder none', () => {
    expect(bundleContentType('treefarm-data-0123456789abcdef.tar.gz')).toBe('application/gzip');
    expect(bundleContentType('treefarm-data-0123456789abcdef.zip')).toBe('application/zip');
    for (const name of [
      'latest.json',
      'index.html',
      'treefarm-data.zip',
      'other-v1.zip',
      'treefarm-data-v1.zip.txt',
      'treefarm-data-v1.gz',
    ])
      expect(bundleContentType(name), name).toBeUndefined();
  });

  test('the bundles latest.json names, by URL path: each with its key, size, SHA-256 and Content-Type', () => {
    const bundles: LatestBundle[] = [
      { name: 'treefarm-data-v1.tar.gz', format: 'tar.gz', size: 10, sha256: A },
      { name: 'treefarm-data-v1.zip', format: 'zip', size: 20, sha256: B },
      { name: 'notes.txt', format: 'zip', size: 30, sha256: B },
    ];
    expect(publishedBundles({ version: 'v1', counts: {} as Latest['counts'], bundles })).toEqual({
      '/downloads/treefarm-data-v1.tar.gz': {
        key: `downloads/${A}`,
        size: 10,
        sha256: A,
        contentType: 'application/gzip',
      },
      '/downloads/treefarm-data-v1.zip': { key: `downloads/${B}`, size: 20, sha256: B, contentType: 'application/zip' },
    });
    expect(downloadPath('latest.json')).toBe('/downloads/latest.json');
  });

  const zip: BucketDownload = { key: `downloads/${B}`, size: 20, sha256: B, contentType: 'application/zip' };
  const listing = { '/downloads/treefarm-data-v1.zip': zip };

  test('a download is found at its own path', () => {
    expect(downloadAt(listing, '/downloads/treefarm-data-v1.zip')).toEqual({ type: 'file', download: zip });
    expect(downloadAt(listing, '/downloads/treefarm-data-v1.tar.gz')).toBeUndefined();
  });

  test('every other spelling a static file server reads as its path redirects to that path', () => {
    for (const path of [
      '/downloads/treefarm-data-v1.%7Aip',
      '/downloads//treefarm-data-v1.zip',
      '/downloads///treefarm-data-v1.zip',
      '//downloads/treefarm-data-v1.zip',
      '/downloads%2ftreefarm-data-v1.zip',
      '/downloads%2Ftreefarm-data-v1.zip',
      '/%64ownloads/treefarm-data-v1.zip',
      '/downloads/%2Ftreefarm-data-v1.zip',
      '/downloads/x%2f..%2ftreefarm-data-v1.zip',
      '/..%2fdownloads/treefarm-data-v1.zip',
      '/downloads/.%2ftreefarm-data-v1.zip',
    ])
      expect(downloadAt(listing, path), path).toEqual({ type: 'redirect', path: '/downloads/treefarm-data-v1.zip' });
  });

  test('a folder spelling, another letter case, a backslash or a NUL names no download', () => {
    for (const path of [
      '/downloads/treefarm-data-v1.zip/',
      '/downloads/treefarm-data-v1.zip%2f',
      '/downloads/treefarm-data-v1.zip/%2e',
      '/DOWNLOADS//treefarm-data-v1.zip',
      '/downloads/%54reefarm-data-v1.zip',
      '/downloads%5ctreefarm-data-v1.zip',
      '/downloads/treefarm-data-v1.zip%00',
    ])
      expect(downloadAt(listing, path), path).toBeUndefined();
  });

  test('a bad %-encoding names no download, and is no error', () => {
    expect(downloadAt(listing, '/downloads/treefarm-data-v1.%zip')).toBeUndefined();
    expect(downloadAt(listing, '/downloads/treefarm-data-v1.zip%')).toBeUndefined();
    expect(downloadAt(listing, '/%64ownloads/treefarm-data-v1.%zip')).toBeUndefined();
  });

  test('only the listing’s own paths: never what every object inherits', () => {
    for (const path of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '/%5f_proto__', '//__proto__'])
      expect(downloadAt(listing, path), path).toBeUndefined();
  });

  test('a path with no %, no // and outside the downloads folder needs no listing', () => {
    expect(mayNameDownload('/trees/oak-tree/')).toBe(false);
    for (const path of ['/downloads/x', '/%64ownloads/x', '//downloads/x', '/a//b'])
      expect(mayNameDownload(path), path).toBe(true);
  });

  test('the ETag of a download is its SHA-256, quoted: a strong tag', () => {
    expect(downloadEtag(zip)).toBe(`"${B}"`);
  });
});
