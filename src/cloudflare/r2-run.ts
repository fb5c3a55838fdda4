// A run of the R2 mode (docs/deploy.md, "Past the limits") through wrangler: its config, one
// object made from the project's wrangler.toml as wrangler itself reads it, and the bucket
// filled through wrangler's own binding. `BODIES=r2 npm run worker` and `npm run deploy` share
// both: the routes, the bucket and the index a run serves are written in one place.
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUCKET_BINDING } from '../contract/bindings.ts';
import { INDEX_VARIABLE } from '../contract/bucket-layout.ts';
import { BUNDLE_NAME, DOWNLOADS_DIR } from '../contract/bundle-layout.ts';
import { MOUNTS } from '../apps/mounts.ts';
import { type BucketPlan, type UploadCount, uploadMissing, type WritableBucket } from './bucket-objects.ts';
import { temporaryFolder } from './temporary-folder.ts';
import { keepWranglerLocal } from './wrangler-local.ts';

/**
 * The routes that run the Worker in the R2 mode: those that need the core, and the offline
 * bundles (served from R2 or the assets, with ranges alike); all else is static.
 */
export const WORKER_ROUTES = [
  '/api',
  '/api/*',
  ...MOUNTS.map(({ path }) => path),
  '/healthz',
  `/${DOWNLOADS_DIR}/${BUNDLE_NAME}-*`,
];

/** The R2 bucket of a run: its name, and whether it is Cloudflare's (a deploy) or wrangler's local simulation. */
export interface BucketPlace {
  name: string;
  remote: boolean;
}

/** What a run of the R2 mode serves. */
export interface R2Run {
  /** The static assets: the build without what R2 holds (assetsWithoutApi). */
  assetsDir: string;
  bucket: BucketPlace;
  /** API_INDEX: the deploy object of the build, which names every other object the Worker reads. */
  indexId: string;
  /** The routes that run the Worker: WORKER_ROUTES, and any a test adds. */
  workerRoutes: readonly string[];
}

/** The settings of wrangler.toml this tooling reads or sets; the others are passed on as they are. */
export interface WranglerConfig {
  main?: string;
  /** The build command (npm run worker:build) and where it runs: relative to wrangler.toml. */
  build?: { command?: string; cwd?: string; watch_dir?: string | string[] };
  assets?: { directory?: string; run_worker_first?: unknown };
  r2_buckets?: { binding?: string }[];
  vars?: Record<string, unknown>;
}

/**
 * The setting of a wrangler.toml that sets up the R2 mode by hand (its routes, bucket binding or
 * API_INDEX), as the file spells it, which a run of the R2 mode sets itself: with it, the run
 * would bind the bucket twice or name another deploy's index.
 */
function handMadeR2Setting(project: WranglerConfig): string | undefined {
  const routes = project.assets?.run_worker_first;
  if (routes !== undefined && routes !== true) return `run_worker_first = ${JSON.stringify(routes)}`;
  if (project.r2_buckets?.some(({ binding }) => binding === BUCKET_BINDING)) return `binding = "${BUCKET_BINDING}"`;
  const index = project.vars?.[INDEX_VARIABLE];
  return index === undefined ? undefined : `${INDEX_VARIABLE} = ${JSON.stringify(index)}`;
}

/**
 * The wrangler config of a run of the R2 mode: the wrangler.toml of `configDir`, read by
 * wrangler's own parser, with its entry made absolute and the run's assets, routes, bucket and
 * API_INDEX set, written as wrangler.json in a temporary folder removed when the run closes.
 * It needs wrangler.toml as shipped, in the assets-only mode: one set up for the R2 mode by hand
 * is refused, naming the setting.
 */
export async function r2RunConfig(configDir: string, run: R2Run): Promise<{ path: string; remove(): void }> {
  const { config: project } = await projectConfig(configDir);
  const handMade = handMadeR2Setting(project);
  const wrong = handMade ? `sets up the R2 mode by hand (${handMade})` : 'has no "run_worker_first = true"';
  if (handMade !== undefined || project.assets?.run_worker_first !== true)
    throw new Error(
      `wrangler.toml in ${configDir} ${wrong}: ` +
        "BODIES=r2 adds the R2 mode's routes, bucket and API_INDEX to each run's config itself, so keep " +
        'wrangler.toml in the assets-only mode, as shipped (run_worker_first = true, no API_BUCKET, no API_INDEX)',
    );
  const bucket = {
    binding: BUCKET_BINDING,
    bucket_name: run.bucket.name,
    ...(run.bucket.remote ? { remote: true } : {}),
  };
  const config = {
    ...project,
    ...(project.main === undefined ? {} : { main: resolve(configDir, project.main) }),
    // The written config sits in a temporary folder: the build runs, and watches, where wrangler.toml is.
    ...(project.build === undefined ? {} : { build: absoluteBuild(configDir, project.build) }),
    assets: { ...project.assets, directory: run.assetsDir, run_worker_first: run.workerRoutes },
    r2_buckets: [...(project.r2_buckets ?? []), bucket],
    vars: { ...project.vars, [INDEX_VARIABLE]: run.indexId },
  };
  const folder = temporaryFolder('treefarm-worker-');
  const path = join(folder.path, 'wrangler.json');
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return { path, remove: folder.remove };
}

/** The wrangler.toml of `configDir` as wrangler itself reads it, and its path. */
export async function projectConfig(configDir: string): Promise<{ path: string; config: WranglerConfig }> {
  const { experimental_readRawConfig } = await import('wrangler');
  const path = join(configDir, 'wrangler.toml');
  return { path, config: (experimental_readRawConfig({ config: path }) as { rawConfig: WranglerConfig }).rawConfig };
}

/** The build table with its folders made absolute from `configDir`. */
function absoluteBuild(configDir: string, build: NonNullable<WranglerConfig['build']>): WranglerConfig['build'] {
  const { watch_dir: watched } = build;
  return {
    ...build,
    cwd: resolve(configDir, build.cwd ?? '.'),
    ...(watched === undefined
      ? {}
      : {
          watch_dir: Array.isArray(watched)
            ? watched.map((dir) => resolve(configDir, dir))
            : resolve(configDir, watched),
        }),
  };
}

/**
 * wrangler could not start what reaches the bucket (the session with Cloudflare for a remote
 * bucket: not logged in, no network; or its local simulation): the bucket itself was not read.
 */
export class BucketUnreachable extends Error {
  override name = 'BucketUnreachable';
  constructor(remote: boolean, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      remote
        ? `wrangler could not open its session with Cloudflare (${reason}): check the login ` +
            '(npx wrangler login, or CLOUDFLARE_API_TOKEN) and the network'
        : `wrangler could not start its local simulation (${reason})`,
      { cause },
    );
  }
}

/**
 * A dry run's view of wrangler's local state in `persistDir`: a copy of its R2 simulation in a
 * temporary folder, since the simulation writes to what it opens (and creates it when missing).
 */
function copyOfLocalBucket(persistDir: string): { path: string; remove(): void } {
  const copy = temporaryFolder('treefarm-bucket-');
  const r2 = join(persistDir, 'v3', 'r2');
  if (existsSync(r2)) cpSync(r2, join(copy.path, 'v3', 'r2'), { recursive: true });
  return copy;
}

/**
 * Puts into the bucket of `configPath` the objects of the build it lacks, through wrangler's
 * binding: wrangler's local R2 in `persistDir` (the folder the local Worker persists to), or
 * with no `persistDir` the remote bucket the config marks `remote`; an object it holds with
 * other bytes is put again. With `dryRun`, counts them and puts none, and writes nothing to
 * `persistDir`. Returns how many. A BucketUnreachable when wrangler cannot reach the bucket.
 */
export async function seedBucket(
  configPath: string,
  persistDir: string | undefined,
  plan: BucketPlan,
  dryRun = false,
): Promise<UploadCount> {
  if (persistDir !== undefined) keepWranglerLocal();
  const copy = dryRun && persistDir !== undefined ? copyOfLocalBucket(persistDir) : undefined;
  const stateDir = copy?.path ?? persistDir;
  const { getPlatformProxy } = await import('wrangler');
  try {
    const proxy = await getPlatformProxy<Record<string, WritableBucket>>({
      configPath,
      ...(stateDir === undefined ? {} : { persist: { path: join(stateDir, 'v3') } }),
      envFiles: [],
      remoteBindings: stateDir === undefined,
    }).catch((error: unknown) => {
      throw new BucketUnreachable(stateDir === undefined, error);
    });
    try {
      const bucket = proxy.env[BUCKET_BINDING];
      if (!bucket) throw new Error(`the ${BUCKET_BINDING} binding is missing from ${configPath}`);
      return await uploadMissing(bucket, plan, dryRun);
    } finally {
      await proxy.dispose();
    }
  } finally {
    copy?.remove();
  }
}
