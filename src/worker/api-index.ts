// The routing index of a Worker deployment, a root and a shard at a time: as dist/ holds it, a
// file per root and shard (the assets-only mode), or in the R2 bucket as the deploy object
// API_INDEX names lists it (the R2 mode). Each root and shard is read once while it is
// remembered (INDEX_CACHE_ENTRIES of each), even for concurrent requests.
import { BUCKET_BINDING } from '../contract/bindings.ts';
import {
  checkDeployObject,
  checkScopeRoot,
  type DeployObject,
  deployKey,
  INDEX_VARIABLE,
  type ScopeRoot,
  scopeName,
  scopeRootKey,
  shardKey,
} from '../contract/bucket-layout.ts';
import { rootPath, shardPath } from '../contract/paths.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { checkRoot, type IndexRoot, type IndexShard } from '../contract/route-index.ts';
import { sha256Hex } from '../contract/sha256.ts';
import { boundedMemo } from '../edge/memo.ts';
import { EnvironmentError } from '../schema/environment.ts';
import { type ApiFiles, type Bytes, inBucket, requiredFile } from './api-files.ts';
import type { WorkerSettings } from './settings.ts';

/** Parsed index shards and roots an isolate keeps: at most 32 KiB each (MAX_SHARD_BYTES). */
const INDEX_CACHE_ENTRIES = 256;

const decoder = new TextDecoder();

/** The index the R2 mode serves, which its deploy uploaded (API_INDEX). */
export function indexIdOf({ index: indexId }: WorkerSettings): string {
  if (indexId === undefined)
    throw new EnvironmentError(
      `the ${BUCKET_BINDING} R2 binding is configured but ${INDEX_VARIABLE} (the index the deploy uploaded) is not set`,
    );
  return indexId;
}

/**
 * Reads each file once while it is remembered, even for concurrent requests. Only a read that
 * succeeded is remembered: a failed one is let go as it fails (a later request reads again), so a
 * bucket that keeps failing holds no memory.
 */
function rememberedReads<T>(limit: number): (key: string, read: () => Promise<T>) => Promise<T> {
  const memo = boundedMemo<string, Promise<T>>(limit);
  const reading = new Map<string, Promise<T>>();
  return (key, read) => {
    const known = memo.find(key) ?? reading.get(key);
    if (known) return known;
    const started = read();
    reading.set(key, started);
    started.then(
      () => {
        reading.delete(key);
        memo.set(key, started);
      },
      () => reading.delete(key),
    );
    return started;
  };
}

export type IndexReads = Pick<RouteIndex, 'root' | 'shard'>;

const parsed = (bytes: Bytes): unknown => JSON.parse(decoder.decode(bytes));

/** The routing index as dist/ holds it, a file per root and shard (the assets-only mode). */
export function filesIndex(files: ApiFiles): IndexReads {
  const roots = rememberedReads<IndexRoot | undefined>(INDEX_CACHE_ENTRIES);
  const shards = rememberedReads<IndexShard>(INDEX_CACHE_ENTRIES);
  return {
    root: (release) =>
      roots(rootPath(release), async () => {
        const bytes = await files.read(rootPath(release));
        return bytes && checkRoot(parsed(bytes), rootPath(release));
      }),
    shard: (release, n) =>
      shards(shardPath(release, n), async () => parsed(await requiredFile(files, shardPath(release, n))) as IndexShard),
  };
}

/**
 * An object of the bucket named by the SHA-256 of its bytes (by its first 32 hex digits: the
 * deploy object, API_INDEX), checked as a body is: one that does not match is never used.
 */
async function objectNamedBy(bucket: R2Bucket, key: string, sha256: string): Promise<Bytes | undefined> {
  const object = await bucket.get(key);
  if (!object) return undefined;
  const bytes = new Uint8Array(await object.arrayBuffer());
  if (!(await sha256Hex(bytes)).startsWith(sha256)) throw new Error(`${key} does not match its SHA-256`);
  return bytes;
}

async function requiredObject(bucket: R2Bucket, key: string, sha256: string): Promise<Bytes> {
  const bytes = await objectNamedBy(bucket, key, sha256);
  if (!bytes) throw new Error(`${key} is missing from ${inBucket}`);
  return bytes;
}

/**
 * The deploy object API_INDEX names, read once as the isolate starts. Without it API_INDEX names
 * a deploy whose upload did not finish, or another bucket is bound: said once, not as a 404.
 */
export async function deployOf(bucket: R2Bucket, indexId: string): Promise<DeployObject> {
  const key = deployKey(indexId);
  // API_INDEX's rule (settings.ts) makes it INDEX_ID_LENGTH hex digits: a prefix that names one object.
  const bytes = await objectNamedBy(bucket, key, indexId);
  if (!bytes)
    throw new EnvironmentError(
      `${inBucket} lacks ${key}, the deploy ${INDEX_VARIABLE} names: its upload did not finish ` +
        '(run the deploy again) or another bucket is bound',
    );
  return checkDeployObject(parsed(bytes), key);
}

/**
 * The routing index in the bucket (the R2 mode): a scope's root as the deploy object names it,
 * then each shard by the SHA-256 that root lists (a shard several scopes share is read once).
 */
export function bucketIndex(bucket: R2Bucket, deploy: DeployObject): IndexReads {
  const roots = rememberedReads<ScopeRoot | undefined>(INDEX_CACHE_ENTRIES);
  const shards = rememberedReads<IndexShard>(INDEX_CACHE_ENTRIES);
  const scopeRoot = (release: string | undefined) => {
    const scope = scopeName(release);
    return roots(scope, async () => {
      const sha256 = Object.hasOwn(deploy.scopes, scope) ? deploy.scopes[scope] : undefined;
      if (sha256 === undefined) return undefined;
      const key = scopeRootKey(sha256);
      return checkScopeRoot(parsed(await requiredObject(bucket, key, sha256)), key);
    });
  };
  return {
    root: async (release) => (await scopeRoot(release))?.root,
    shard: async (release, n) => {
      const sha256 = (await scopeRoot(release))?.shards[n];
      if (sha256 === undefined) throw new Error(`the scope ${scopeName(release)} has no shard ${n} in ${inBucket}`);
      return shards(sha256, async () => parsed(await requiredObject(bucket, shardKey(sha256), sha256)) as IndexShard);
    },
  };
}
