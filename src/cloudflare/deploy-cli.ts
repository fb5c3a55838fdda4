// `npm run deploy`: builds dist/ first when it is stale, says which mode and plan the build
// needs, with the figures, then uploads to R2 the objects the bucket lacks (the R2 mode,
// BODIES=r2) and deploys the Worker. --dry-run prints the plan and changes nothing (a stale
// build is said so and planned as it is); --local uses wrangler's local R2 simulation
// (.wrangler/state, what `BODIES=r2 npm run worker` serves) and deploys nothing.
import '../cli/node-check.ts';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { projectDir } from '../cli/project-dir.ts';
import {
  assetFilesBelow,
  assetsIgnoreOf,
  count,
  mebibytes,
  planNeeded,
  uploadedFiles,
  type AssetFile,
} from '../build/deploy-limits.ts';
import { buildWhenStale, projectBuild, type Rebuildable } from '../build/site.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';
import { BUCKET_BINDING } from '../contract/bindings.ts';
import { INDEX_VARIABLE } from '../contract/bucket-layout.ts';
import {
  assetsWithoutApi,
  type BucketPlan,
  bucketPlan,
  staticInR2Mode,
  type UploadCount,
  UploadInterrupted,
} from './bucket-objects.ts';
import { type BodiesMode, settingsFromEnvironment, workerDevVariables } from '../server/settings.ts';
import { BucketUnreachable, r2RunConfig, seedBucket, WORKER_ROUTES } from './r2-run.ts';
import { exitOnSignals } from './temporary-folder.ts';
import { checkWranglerVars } from './wrangler-vars.ts';

const { distDir, bodies, bucket, downloadsAbove } = workerDevVariables;
const requireHere = createRequire(import.meta.url);
const wranglerManifest = requireHere.resolve('wrangler/package.json');
/** wrangler's command line, run with node. Its package exports no path to it: its package.json's bin names it. */
export const wranglerBin = join(
  dirname(wranglerManifest),
  (requireHere(wranglerManifest) as { bin: { wrangler: string } }).bin.wrangler,
);

export interface DeployOptions {
  distDir: string;
  bodies: BodiesMode;
  dryRun: boolean;
  /** The R2 bucket's name (R2_BUCKET). */
  bucket: string;
  /** Bundles larger than this many bytes go to the bucket (R2_DOWNLOADS_ABOVE; 25 MiB by default). */
  downloadsAbove?: number;
  /** The folder of the wrangler.toml deployed (the project's by default): its [vars] are checked first. */
  configDir?: string;
  /** wrangler's local R2 simulation in this folder instead of Cloudflare's; no Worker deploy. */
  localPersistDir?: string;
  log: (line: string) => void;
  /** The project's build when it is the one deployed: built first when stale (a dry run only says so). */
  source?: Rebuildable;
  /** Puts what the bucket lacks and counts it (a test's stand-in); by default through wrangler's binding. */
  upload?: (plan: BucketPlan, dryRun: boolean) => Promise<UploadCount>;
  /** Runs wrangler with these arguments (a test's stand-in records them); by default wrangler's own CLI. */
  wrangler?: (args: string[]) => void;
}

/** One line of figures: how many files, the largest, and the plan that holds them. */
function describeAssets(files: readonly AssetFile[], ignored: readonly string[]): string {
  const uploaded = uploadedFiles(files, ignored);
  const largest = uploaded.reduce((max, file) => Math.max(max, file.size), 0);
  const plan = planNeeded(files, ignored);
  return `${count(uploaded.length)} static asset files (largest ${mebibytes(largest)}): ${
    plan ? `fits the Workers ${plan} plan` : 'fits no Workers plan'
  }`;
}

/**
 * Makes sure there is a build to deploy: the project's own is built first when stale. A dry run
 * changes nothing, dist/ included: it plans the build there is, saying it is stale.
 */
async function buildToDeploy({ distDir, dryRun, source, log }: DeployOptions): Promise<void> {
  if (source && !dryRun) await buildWhenStale(source, log);
  if (!existsSync(join(distDir, MANIFEST_FILE))) throw new Error(`${distDir} holds no build: run npm run build first`);
  const stale = dryRun ? source?.staleReason() : undefined;
  if (stale) log(`Dry run: not building, though ${stale}: the plan of the build as it is, which a deploy rebuilds.`);
}

/** Prints what each mode would put where; returns the bucket's plan and whether assets alone fit no plan. */
function logPlan({ distDir, downloadsAbove, bodies, log }: DeployOptions): { plan: BucketPlan; needsR2: boolean } {
  const files = assetFilesBelow(distDir);
  const ignored = assetsIgnoreOf(distDir);
  const plan = bucketPlan(distDir, downloadsAbove);
  const withoutApi = staticInR2Mode(files, plan);
  const sizes = plan.objects.map(({ size }) => size);
  const needsR2 = planNeeded(files, ignored) === undefined;
  log(`Deploy plan for ${distDir} (BODIES=${bodies}):`);
  log(`  assets-only mode: ${describeAssets(files, ignored)}${needsR2 ? ': this build needs the R2 mode' : ''}.`);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const largest = sizes.reduce((max, size) => Math.max(max, size), 0);
  log(
    `  R2 mode: ${describeAssets(withoutApi, ignored)}; ${count(plan.objects.length)} R2 objects ` +
      `(downloads: ${count(Object.keys(plan.downloads).length)}), ${mebibytes(total)} (largest ${mebibytes(largest)}).`,
  );
  return { plan, needsR2 };
}

/** The assets-only mode: dist/ as the Worker's assets; --local and a dry run deploy nothing. */
function deployAssetsOnly(options: DeployOptions, needsR2: boolean): undefined {
  const { log } = options;
  if (needsR2) throw new Error('the assets-only mode fits no Workers plan: deploy with BODIES=r2');
  // --local deploys nothing, in this mode as in the R2 mode (where it fills the local bucket).
  if (options.dryRun) log('Dry run: nothing deployed.');
  else if (options.localPersistDir !== undefined)
    log('--local: nothing deployed, and this mode has no bucket to fill (npm run worker serves it).');
  else {
    log('Deploying the Worker with dist/ as its assets.');
    const config = options.configDir === undefined ? [] : ['--config', join(options.configDir, 'wrangler.toml')];
    (options.wrangler ?? wrangler)(['deploy', ...config]);
  }
  return undefined;
}

/**
 * Prints the plan, then (unless a dry run) uploads what the bucket lacks; returns how many objects
 * that is (undefined where no bucket was read: the assets-only mode, a dry run without --local).
 */
export async function deploy(options: DeployOptions): Promise<UploadCount | undefined> {
  // Before any build or upload: a malformed variable would only show on the deployed Worker.
  await checkWranglerVars(options.configDir ?? projectDir);
  await buildToDeploy(options);
  const { plan, needsR2 } = logPlan(options);
  if (options.bodies === 'assets') return deployAssetsOnly(options, needsR2);
  const local = options.localPersistDir !== undefined;
  const where = `the ${local ? 'local ' : ''}R2 bucket "${options.bucket}" (binding ${BUCKET_BINDING})`;
  if (options.dryRun && !local) {
    // Cloudflare's bucket is read through a remote session wrangler opens with a login (and a
    // Worker it puts up for it): a dry run needs neither, and changes nothing there.
    options.log(
      `Dry run: ${where} is not read (that takes a login and a session with Cloudflare): a deploy puts ` +
        `those of the ${count(plan.objects.length)} objects it lacks; nothing uploaded, nothing deployed.`,
    );
    return undefined;
  }
  const staged = assetsWithoutApi(options.distDir, plan);
  let config: { path: string; remove(): void } | undefined;
  try {
    // The run's config names its assets (dist/ without api/), routes, bucket and API_INDEX.
    config = await r2RunConfig(options.configDir ?? projectDir, {
      assetsDir: staged.dir,
      bucket: { name: options.bucket, remote: !local },
      indexId: plan.indexId,
      workerRoutes: WORKER_ROUTES,
    });
    return await uploadThenDeploy(options, plan, config.path, where);
  } finally {
    config?.remove();
    staged.remove();
  }
}

/**
 * The R2 mode's deploy with its config: uploads what the bucket lacks (a dry run counts it), then
 * deploys the Worker, only once every object it names is there; --local deploys nothing.
 */
async function uploadThenDeploy(
  options: DeployOptions,
  plan: BucketPlan,
  configPath: string,
  where: string,
): Promise<UploadCount> {
  const { log } = options;
  const local = options.localPersistDir !== undefined;
  log(`Comparing the build's ${count(plan.objects.length)} objects with ${where}.`);
  const upload =
    options.upload ?? ((objects, dryRun) => seedBucket(configPath, options.localPersistDir, objects, dryRun));
  const counted = await upload(plan, options.dryRun).catch((error: unknown) => {
    throw bucketError(error, where, local ? undefined : options.bucket);
  });
  const { missing, corrupt } = counted;
  const replaced = corrupt > 0 ? ` (${count(corrupt)} of them there with other bytes than their key names)` : '';
  log(
    options.dryRun
      ? `Dry run: ${count(missing)} objects ${where} lacks${replaced}; nothing uploaded, nothing deployed.`
      : `Uploaded ${count(missing)} objects ${where} lacked${replaced} (${INDEX_VARIABLE}=${plan.indexId}).`,
  );
  if (!local && !options.dryRun) {
    log('Deploying the Worker: dist/ without api/ as its assets, run first only for the API and the bundles.');
    (options.wrangler ?? wrangler)(['deploy', '--config', configPath]);
  }
  return counted;
}

/**
 * What went wrong with the bucket, for the operator: an interrupted upload says the deployed
 * version still serves and a second run finishes it; a bucket wrangler could not reach (no
 * login, no network) says so; any other failure (reading the bucket first) names the bucket
 * and, for Cloudflare's, the command that creates it.
 */
function bucketError(error: unknown, where: string, remoteBucket: string | undefined): Error {
  if (error instanceof BucketUnreachable) return new Error(`${where} was not reached: ${error.message}`);
  if (error instanceof UploadInterrupted)
    return new Error(
      `the upload to ${where} stopped: ${error.message}. The Worker was not deployed: the version ` +
        `deployed before still serves, its objects untouched. Run npm run deploy again to put the ` +
        `${count(error.missing - error.put)} objects still missing.`,
    );
  const reason = error instanceof Error ? error.message : String(error);
  const create = remoteBucket
    ? `; if it does not exist, create it with npx wrangler r2 bucket create ${remoteBucket}`
    : '';
  return new Error(`${where} could not be read (${reason})${create}`);
}

function wrangler(args: string[]): void {
  const result = spawnSync(process.execPath, [wranglerBin, ...args], { cwd: projectDir, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed (${result.status})`);
}

const deployCommand: CommandSpec = {
  command: 'npm run deploy',
  summary:
    'Builds dist/ when it is stale, says which mode and Cloudflare plan the build needs, then uploads to R2 what ' +
    'the bucket lacks (BODIES=r2) and deploys the Worker with wrangler.',
  options: {
    'dry-run': { type: 'boolean', description: 'print the plan and change nothing' },
    local: { type: 'boolean', description: "fill wrangler's local R2 simulation (.wrangler/state) and deploy nothing" },
  },
  variables: { distDir, bodies, bucket, downloadsAbove },
  examples: ['BODIES=r2 npm run deploy -- --dry-run'],
  version: () => projectVersion(),
  failure: 'Cannot deploy',
};

if (import.meta.main) {
  // Ctrl-C or SIGTERM partway: the temporary folders go with the exit.
  exitOnSignals();
  await runMain(deployCommand, async ({ values }) => {
    try {
      const { bodies, distDir, bucket, downloadsAbove } = settingsFromEnvironment(process.env, workerDevVariables);
      // The project's own dist/ is built when stale; another DIST_DIR is deployed as it is.
      const ownBuild = resolve(distDir) === resolve(projectDir, 'dist');
      await deploy({
        distDir,
        ...(ownBuild ? { source: projectBuild } : {}),
        bodies,
        bucket,
        downloadsAbove,
        dryRun: values['dry-run'] === true,
        ...(values.local === true ? { localPersistDir: join(projectDir, '.wrangler', 'state') } : {}),
        log: console.log,
      });
      return 0;
    } catch (error) {
      console.error(`Cannot deploy: ${(error as Error).message}`);
      return 1;
    }
  });
}
