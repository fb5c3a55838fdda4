// The R2 mode's objects (src/server/bucket-objects.ts): what a build puts in the bucket, that
// an upload puts only what the bucket lacks, never overwrites, survives an interruption, and
// that the static assets of the mode hold no API file and no download the bucket serves.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { assetsWithoutApi, bucketPlan, uploadMissing, type WritableBucket } from '../../src/server/bucket-objects.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A small build: two bodies, one scope's index, the Node server's pack and a wiki page. */
function build(files: Record<string, string>): string {
  const dist = mkdtempSync(join(tmpdir(), 'bucket-objects-'));
  folders.push(dist);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  return dist;
}

const files = {
  'api/bodies/aaaa': 'body a',
  'api/bodies/bbbb': 'body b',
  'api/index/current/root.json': '{"shards":1}',
  'api/index/current/0.json': '{"trees/list":"aaaa"}',
  'api/bodies.pack': 'pack',
  'index.html': '<h1>wiki</h1>',
};

/** A bucket in memory that refuses to overwrite, and can fail after a number of puts. */
function memoryBucket(failAfter = Number.POSITIVE_INFINITY) {
  const objects = new Map<string, ArrayBuffer>();
  const puts: string[] = [];
  const bucket: WritableBucket = {
    async list({ cursor }) {
      // Two keys a page, so the upload must follow the cursor.
      const keys = [...objects.keys()].sort();
      const start = Number(cursor ?? 0);
      const page = keys.slice(start, start + 2);
      const truncated = start + 2 < keys.length;
      return { objects: page.map((key) => ({ key })), truncated, cursor: truncated ? String(start + 2) : undefined };
    },
    async put(key, value) {
      if (puts.length >= failAfter) throw new Error('the connection dropped');
      if (objects.has(key)) throw new Error(`${key} overwritten`);
      puts.push(key);
      objects.set(key, value);
    },
  };
  return { bucket, objects, puts };
}

describe('the objects of a build', () => {
  test('each body once by its SHA-256, the index under its own digest, not the pack', () => {
    const plan = bucketPlan(build(files));
    expect(plan.objects.map(({ key }) => key).sort()).toEqual(
      [
        'bodies/aaaa',
        'bodies/bbbb',
        `index/${plan.indexId}/current/0.json`,
        `index/${plan.indexId}/current/root.json`,
      ].sort(),
    );
  });

  test('another index has another prefix, so the earlier one stays for a rollback', () => {
    const before = bucketPlan(build(files)).indexId;
    const after = bucketPlan(build({ ...files, 'api/index/current/0.json': '{"trees/list":"bbbb"}' })).indexId;
    expect(after).not.toBe(before);
    expect(bucketPlan(build(files)).indexId).toBe(before);
  });
});

/** The same build with its downloads: two bundles, the page and latest.json. */
const withDownloads = {
  ...files,
  'downloads/index.html': '<h1>downloads</h1>',
  'downloads/latest.json': '{"bundles":[]}',
  'downloads/treefarm-data-v1.zip': 'zip bytes, twenty-six',
  'downloads/treefarm-data-v1.tar.gz': 'tar.gz',
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the downloads of a build', () => {
  test('a bundle past the threshold is an object named by its SHA-256, listed by URL under the index', () => {
    const plan = bucketPlan(build(withDownloads), 10);
    const zip = withDownloads['downloads/treefarm-data-v1.zip'];
    expect(plan.downloads).toEqual({
      '/downloads/treefarm-data-v1.zip': {
        key: `downloads/${sha256(zip)}`,
        size: zip.length,
        sha256: sha256(zip),
        contentType: 'application/zip',
      },
    });
    const keys = plan.objects.map(({ key }) => key);
    expect(keys).toContain(`downloads/${sha256(zip)}`);
    expect(keys).toContain(`index/${plan.indexId}/downloads.json`);
    const listing = plan.objects.find(({ key }) => key.endsWith('/downloads.json'));
    expect(JSON.parse(new TextDecoder().decode(listing?.read()))).toEqual(plan.downloads);
  });

  test('at threshold 0 every bundle is in the bucket, but never the page or latest.json', () => {
    expect(Object.keys(bucketPlan(build(withDownloads), 0).downloads).sort()).toEqual([
      '/downloads/treefarm-data-v1.tar.gz',
      '/downloads/treefarm-data-v1.zip',
    ]);
  });

  test('by default (25 MiB) no bundle of this size is, and there is no listing', () => {
    const plan = bucketPlan(build(withDownloads));
    expect(plan.downloads).toEqual({});
    expect(plan.objects).toHaveLength(4);
  });

  test('the listing is in the index digest: other downloads, another prefix', () => {
    const before = bucketPlan(build(withDownloads), 0).indexId;
    const changed = { ...withDownloads, 'downloads/treefarm-data-v1.zip': 'other zip bytes' };
    expect(bucketPlan(build(changed), 0).indexId).not.toBe(before);
  });

  test('the static assets leave out the bundles in the bucket and keep the rest of the folder', () => {
    const dist = build(withDownloads);
    const assets = assetsWithoutApi(dist, bucketPlan(dist, 10));
    try {
      expect(readdirSync(join(assets.dir, 'downloads')).sort()).toEqual([
        'index.html',
        'latest.json',
        'treefarm-data-v1.tar.gz',
      ]);
    } finally {
      assets.remove();
    }
  });

  test('a download goes up before the listing that names it', async () => {
    const { bucket, puts } = memoryBucket();
    const plan = bucketPlan(build(withDownloads), 0);
    await uploadMissing(bucket, plan);
    expect(puts.indexOf(`index/${plan.indexId}/downloads.json`)).toBeGreaterThan(
      Math.max(...puts.filter((key) => key.startsWith('downloads/')).map((key) => puts.indexOf(key))),
    );
  });
});

describe('the upload', () => {
  test('puts only what the bucket lacks: a second run puts nothing', async () => {
    const plan = bucketPlan(build(files));
    const { bucket } = memoryBucket();
    expect(await uploadMissing(bucket, plan)).toBe(4);
    expect(await uploadMissing(bucket, plan)).toBe(0);
  });

  test('a changed record puts only the objects it changed', async () => {
    const { bucket } = memoryBucket();
    await uploadMissing(bucket, bucketPlan(build(files)));
    const changed = bucketPlan(
      build({ ...files, 'api/bodies/cccc': 'body c', 'api/index/current/0.json': '{"trees/list":"cccc"}' }),
    );
    // The new body, and the new index's two files under its new prefix.
    expect(await uploadMissing(bucket, changed)).toBe(3);
  });

  test('bodies go before the index that names them, and an interrupted upload is finished by the next', async () => {
    const plan = bucketPlan(build(files));
    const dropped = memoryBucket(2);
    await expect(uploadMissing(dropped.bucket, plan)).rejects.toThrow('the connection dropped');
    expect(dropped.puts).toEqual(['bodies/aaaa', 'bodies/bbbb']);
    const { bucket, objects } = memoryBucket();
    for (const [key, value] of dropped.objects) await bucket.put(key, value);
    expect(await uploadMissing(bucket, plan)).toBe(2);
    expect(objects.size).toBe(4);
  });
});

test('the static assets of the R2 mode hold the wiki and no API file', () => {
  const dist = build(files);
  const assets = assetsWithoutApi(dist);
  try {
    expect(readdirSync(assets.dir)).toEqual(['index.html']);
    expect(existsSync(join(assets.dir, 'api'))).toBe(false);
  } finally {
    assets.remove();
  }
  expect(existsSync(assets.dir)).toBe(false);
});
