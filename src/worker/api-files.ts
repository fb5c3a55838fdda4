// The API's files of a Worker deployment, by their dist/ paths: the static assets (the
// assets-only mode) or the R2 bucket (the R2 mode, keyed as src/contract/bucket-layout.ts says),
// and the stored bodies read from them, each checked against its SHA-256 before it is used and
// kept, oldest out past BODY_CACHE_BYTES.
import { BUCKET_BINDING } from '../contract/bindings.ts';
import { bucketKey } from '../contract/bucket-layout.ts';
import { storedBodyPath } from '../contract/paths.ts';
import { sha256Hex } from '../contract/sha256.ts';

/** Bodies an isolate keeps, oldest out past this many bytes: well inside its 128 MB (docs/deploy.md). */
const BODY_CACHE_BYTES = 16 * 1024 * 1024;

export type Bytes = Uint8Array<ArrayBuffer>;

export const inBucket = `the ${BUCKET_BINDING} R2 bucket`;

/** Reads an API file by its dist/ path: its bytes, or undefined when it is not deployed. */
export interface ApiFiles {
  read(path: string): Promise<Bytes | undefined>;
  /** Where the files are, for an error message. */
  where: string;
}

/** The API's files as static assets (the assets-only mode). */
export function assetFiles(env: Env, origin: string): ApiFiles {
  const where = 'the deployed assets';
  return {
    where,
    async read(path) {
      const response = await env.ASSETS.fetch(`${origin}/${path}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`${path} could not be read from ${where} (${response.status})`);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

/** The API's bodies in the R2 bucket (the R2 mode), keyed as src/contract/bucket-layout.ts says. */
export function bucketFiles(bucket: R2Bucket): ApiFiles {
  return {
    where: inBucket,
    async read(path) {
      const key = bucketKey(path);
      const object = key === undefined ? null : await bucket.get(key);
      return object ? new Uint8Array(await object.arrayBuffer()) : undefined;
    },
  };
}

export async function requiredFile(files: ApiFiles, path: string): Promise<Bytes> {
  const bytes = await files.read(path);
  if (!bytes) throw new Error(`${path} is missing from ${files.where}`);
  return bytes;
}

/**
 * The stored bodies of the deployment, each checked against its SHA-256 when fetched (an asset
 * that does not match is never served) and kept, oldest out past BODY_CACHE_BYTES.
 */
export function storedBodies(files: ApiFiles): (stored: string) => Promise<Bytes> {
  const containers = new Map<string, Promise<Bytes>>();
  const sizes = new Map<string, number>();
  let cachedBytes = 0;
  const remember = (stored: string, size: number) => {
    sizes.set(stored, size);
    cachedBytes += size;
    for (const old of containers.keys()) {
      if (cachedBytes <= BODY_CACHE_BYTES) break;
      if (old === stored) continue;
      cachedBytes -= sizes.get(old) ?? 0;
      sizes.delete(old);
      containers.delete(old);
    }
  };
  return (stored) => {
    const known = containers.get(stored);
    if (known) return known;
    const path = storedBodyPath(stored);
    const fetched = requiredFile(files, path).then(async (read) => {
      if ((await sha256Hex(read)) !== stored) throw new Error(`${path} does not match its SHA-256`);
      return read;
    });
    containers.set(stored, fetched);
    fetched.then(
      (verified) => remember(stored, verified.length),
      () => {
        if (containers.get(stored) === fetched) containers.delete(stored);
      },
    );
    return fetched;
  };
}
