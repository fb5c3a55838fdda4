// The R2 mode's objects (src/cloudflare/bucket-objects.ts): what a build puts in the bucket, that
// an upload puts only what the bucket lacks, never overwrites, survives an interruption, and
// that the static assets of the mode hold no API file and no download the bucket serves.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BUCKET_FOLDERS } from '../../src/contract/bucket-layout.ts';
import {
  assetsWithoutApi,
  type BucketPlan,
  bucketPlan,
  uploadMissing,
  type WritableBucket,
} from '../../src/cloudflare/bucket-objects.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A small build: two bodies, one scope's index, the Node server's pack and a wiki page. */
function build(files: Record<string, string>): string {
  const dist = temporaryFolder('bucket-objects-');
  folders.push(dist);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  return dist;
}

const root = (version: string, shards: number) => JSON.stringify({ version, shards, nearGroup: 3 });
const files = {
  'api/bodies/aaaa': 'body a',
  'api/bodies/bbbb': 'body b',
  'api/index/current/root.json': root('v2', 2),
  'api/index/current/0.json': '{"trees/list":"aaaa"}',
  'api/index/current/1.json': '{"cutters/list":"bbbb"}',
  'api/index/releases/2026-11-01/root.json': root('v1', 1),
  'api/index/releases/2026-11-01/0.json': '{"trees/list":"aaaa","cutters/list":"bbbb"}',
  'api/bodies.pack': 'pack',
  'index.html': '<h1>wiki</h1>',
};

const md5 = (bytes: ArrayBuffer) => createHash('md5').update(new Uint8Array(bytes)).digest('hex');

/** A bucket in memory that refuses to overwrite an object with the same bytes, and can fail after a number of puts. */
function memoryBucket(failAfter = Number.POSITIVE_INFINITY) {
  const objects = new Map<string, ArrayBuffer>();
  const puts: string[] = [];
  const bucket: WritableBucket = {
    async list({ cursor }) {
      // Two keys a page, so the upload must follow the cursor; each etag the MD5 of the bytes, as R2's.
      const keys = [...objects.keys()].sort();
      const start = Number(cursor ?? 0);
      const page = keys
        .slice(start, start + 2)
        .map((key) => ({ key, etag: md5(objects.get(key) ?? new ArrayBuffer()) }));
      const truncated = start + 2 < keys.length;
      return { objects: page, truncated, cursor: truncated ? String(start + 2) : undefined };
    },
    async put(key, value) {
      if (puts.length >= failAfter) throw new Error('the connection dropped');
      const before = objects.get(key);
      if (before && md5(before) === md5(value)) throw new Error(`${key} overwritten`);
      puts.push(key);
      objects.set(key, value);
    },
  };
  return { bucket, objects, puts };
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');
const json = (plan: BucketPlan, key: string): unknown =>
  JSON.parse(new TextDecoder().decode(plan.objects.find((object) => object.key === key)?.read()));
/** The keys of a list, counted by kind (the bucket's folders). */
const byKind = (keys: string[]) =>
  Object.fromEntries(
    Object.entries(BUCKET_FOLDERS).map(([kind, folder]) => [kind, keys.filter((key) => key.startsWith(folder)).length]),
  );

describe('the objects of a build', () => {
  test('each body and shard by its SHA-256, a root per scope naming its shards, the deploy naming the roots', () => {
    const plan = bucketPlan(build(files));
    const shard = (path: keyof typeof files) => sha256(files[path]);
    const current = {
      root: JSON.parse(files['api/index/current/root.json']),
      shards: [0, 1].map((n) => shard(`api/index/current/${n}.json` as keyof typeof files)),
    };
    const release = {
      root: JSON.parse(files['api/index/releases/2026-11-01/root.json']),
      shards: [shard('api/index/releases/2026-11-01/0.json')],
    };
    const deploy = {
      scopes: { current: sha256(JSON.stringify(current)), '2026-11-01': sha256(JSON.stringify(release)) },
      downloads: {},
    };
    expect(plan.indexId).toBe(sha256(JSON.stringify(deploy)).slice(0, 32));
    // Not the pack: the Node server's alone.
    expect(plan.objects.map(({ key }) => key)).toEqual([
      'bodies/aaaa',
      'bodies/bbbb',
      ...current.shards.map((sha) => `index/shards/${sha}`),
      `index/shards/${release.shards[0]}`,
      `index/roots/${deploy.scopes.current}`,
      `index/roots/${deploy.scopes['2026-11-01']}`,
      `index/deploys/${plan.indexId}.json`,
    ]);
    expect(json(plan, `index/roots/${deploy.scopes.current}`)).toEqual(current);
    expect(json(plan, `index/deploys/${plan.indexId}.json`)).toEqual(deploy);
  });

  test('a shard two scopes share is one object', () => {
    const plan = bucketPlan(
      build({ ...files, 'api/index/releases/2026-11-01/0.json': files['api/index/current/0.json'] }),
    );
    expect(byKind(plan.objects.map(({ key }) => key))).toMatchObject({ shards: 2, roots: 2 });
  });

  test('another index is another deploy object, so the earlier one stays for a rollback', () => {
    const before = bucketPlan(build(files)).indexId;
    const after = bucketPlan(build({ ...files, 'api/index/current/0.json': '{"trees/list":"bbbb"}' })).indexId;
    expect(after).not.toBe(before);
    expect(bucketPlan(build(files)).indexId).toBe(before);
  });

  test('a shard its root counts but the build lacks is named', () => {
    const { 'api/index/current/1.json': _, ...withoutShard } = files;
    expect(() => bucketPlan(build(withoutShard))).toThrow(
      "api/index/current/1.json is missing: the build's index is incomplete",
    );
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
describe('the downloads of a build', () => {
  test('a bundle past the threshold is an object named by its SHA-256, listed by URL in the deploy object', () => {
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
    expect(plan.objects.map(({ key }) => key)).toContain(`downloads/${sha256(zip)}`);
    expect(json(plan, `index/deploys/${plan.indexId}.json`)).toMatchObject({ downloads: plan.downloads });
  });

  test('at threshold 0 every bundle is in the bucket, but never the page or latest.json', () => {
    expect(Object.keys(bucketPlan(build(withDownloads), 0).downloads).sort()).toEqual([
      '/downloads/treefarm-data-v1.tar.gz',
      '/downloads/treefarm-data-v1.zip',
    ]);
  });

  test('by default (25 MiB) no bundle of this size is, and the deploy object lists none', () => {
    const plan = bucketPlan(build(withDownloads));
    expect(plan.downloads).toEqual({});
    expect(byKind(plan.objects.map(({ key }) => key)).downloads).toBe(0);
    expect(json(plan, `index/deploys/${plan.indexId}.json`)).toMatchObject({ downloads: {} });
  });

  test('the listing is in the deploy object: other downloads, another API_INDEX', () => {
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
});

describe('the upload', () => {
  test('puts only what the bucket lacks: a second run puts nothing', async () => {
    const plan = bucketPlan(build(files));
    const { bucket } = memoryBucket();
    expect(await uploadMissing(bucket, plan)).toEqual({ missing: 8, corrupt: 0 });
    expect(await uploadMissing(bucket, plan)).toEqual({ missing: 0, corrupt: 0 });
  });

  test('an object there with other bytes than its key names (a bad write) is put again by the next run', async () => {
    const plan = bucketPlan(build(files));
    const { bucket, objects, puts } = memoryBucket();
    await uploadMissing(bucket, plan);
    const bytes = (text: string) => new TextEncoder().encode(text).buffer;
    // A body cut short, and a root holding another root's bytes: each still under its own key.
    const root = plan.objects.find(({ key }) => key.startsWith('index/roots/'))?.key ?? '';
    objects.set('bodies/aaaa', bytes('body'));
    objects.set(root, bytes('{"root":{},"shards":[]}'));
    const before = puts.length;
    expect(await uploadMissing(bucket, plan, true)).toEqual({ missing: 2, corrupt: 2 });
    expect(await uploadMissing(bucket, plan)).toEqual({ missing: 2, corrupt: 2 });
    expect(puts.slice(before)).toEqual(['bodies/aaaa', root]);
    for (const { key, read } of plan.objects)
      expect(new Uint8Array(objects.get(key) ?? [])).toEqual(new Uint8Array(read()));
    expect(await uploadMissing(bucket, plan)).toEqual({ missing: 0, corrupt: 0 });
  });

  test('a changed record puts only the objects whose content changed: body, shard, root, deploy', async () => {
    const { bucket, puts } = memoryBucket();
    await uploadMissing(bucket, bucketPlan(build(files)));
    const before = puts.length;
    // The current data's shard 0 names a new body; its shard 1 and the release are as they were.
    const changed = bucketPlan(
      build({ ...files, 'api/bodies/cccc': 'body c', 'api/index/current/0.json': '{"trees/list":"cccc"}' }),
    );
    expect(await uploadMissing(bucket, changed)).toEqual({ missing: 4, corrupt: 0 });
    expect(byKind(puts.slice(before))).toEqual({ bodies: 1, shards: 1, roots: 1, deploys: 1, downloads: 0 });
    expect(puts.slice(before)).toEqual([
      'bodies/cccc',
      `index/shards/${sha256('{"trees/list":"cccc"}')}`,
      expect.stringMatching(/^index\/roots\//),
      `index/deploys/${changed.indexId}.json`,
    ]);
  });

  test('an object goes up after those it names: bodies, shards, downloads, roots, the deploy last', async () => {
    const { bucket, puts } = memoryBucket();
    await uploadMissing(bucket, bucketPlan(build(withDownloads), 0));
    const kinds = puts.map((key) => Object.entries(BUCKET_FOLDERS).find(([, folder]) => key.startsWith(folder))?.[0]);
    const last = (kind: string) => kinds.lastIndexOf(kind);
    const first = (kind: string) => kinds.indexOf(kind);
    expect(Math.max(last('bodies'), last('shards'), last('downloads'))).toBeLessThan(first('roots'));
    expect(last('roots')).toBeLessThan(first('deploys'));
    expect(kinds.at(-1)).toBe('deploys');
  });

  test('an interrupted upload is finished by the next, which puts only the rest', async () => {
    const plan = bucketPlan(build(files));
    const dropped = memoryBucket(5);
    await expect(uploadMissing(dropped.bucket, plan)).rejects.toThrow('the connection dropped');
    // Bodies and shards went up; no root, no deploy object names what is missing.
    expect(byKind(dropped.puts)).toEqual({ bodies: 2, shards: 3, roots: 0, deploys: 0, downloads: 0 });
    const { bucket, objects } = memoryBucket();
    for (const [key, value] of dropped.objects) await bucket.put(key, value, { md5: md5(value) });
    expect(await uploadMissing(bucket, plan)).toEqual({ missing: 3, corrupt: 0 });
    expect(objects.size).toBe(8);
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
