// wrangler's local R2 simulation opened as the tests' own view of it: a bucket by its name in
// a state folder (what `npm run worker` persists to and `npm run deploy -- --local` fills),
// through wrangler's binding, with a config of the test's making (not the tooling's).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUCKET_BINDING } from '../../src/contract/bindings.ts';
import { temporaryFolder } from './temporary-folders.ts';

export interface LocalBucket {
  put(key: string, value: ArrayBuffer): Promise<unknown>;
  get(key: string): Promise<{ text(): Promise<string> } | null>;
}

/** Runs `use` with the local bucket `name` of wrangler's state in `persistDir`. */
export async function withLocalBucket<T>(
  persistDir: string,
  name: string,
  use: (bucket: LocalBucket) => Promise<T>,
): Promise<T> {
  const folder = temporaryFolder('local-bucket-');
  const configPath = join(folder, 'wrangler.json');
  const bucket = { binding: BUCKET_BINDING, bucket_name: name };
  writeFileSync(
    configPath,
    JSON.stringify({ name: 'local-bucket', compatibility_date: '2026-11-17', r2_buckets: [bucket] }),
  );
  const { getPlatformProxy } = await import('wrangler');
  const proxy = await getPlatformProxy<Record<string, LocalBucket>>({
    configPath,
    persist: { path: join(persistDir, 'v3') },
    envFiles: [],
  });
  try {
    const bucket = proxy.env[BUCKET_BINDING];
    if (!bucket) throw new Error(`no ${BUCKET_BINDING} binding in the proxy`);
    return await use(bucket);
  } finally {
    await proxy.dispose();
    rmSync(folder, { recursive: true, force: true });
  }
}
