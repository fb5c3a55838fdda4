// The project's container image (Dockerfile) built and run with Debian's podman, as the tests
// and bench:container do. Podman keeps its images in a folder of its own (PODMAN_DIR), so the
// base image, made once by deploy/base-image.sh (mmdebstrap: no image registry is reachable
// here), is kept between runs. Runs as root with docs/deploy.md's fixes for this host's limits:
// runc (crun fails on cgroups v1), the vfs storage driver, and ulimits below the hard limits.
// Missing podman: the suite skips locally and fails in CI (REQUIRE_PODMAN=1).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectDir } from '../../src/cli/project-dir.ts';

/** Debian's podman; PODMAN_PATH points elsewhere (or nowhere, to try the skip). */
export const PODMAN_PATH = process.env.PODMAN_PATH ?? '/usr/bin/podman';
/** Podman's storage and settings for the project's tests, kept between runs. */
const PODMAN_DIR = process.env.PODMAN_DIR ?? '/var/tmp/treefarm-podman';
/** The image the Dockerfile starts from (its BASE_IMAGE), made here from Debian's own packages. */
export const BASE_IMAGE = 'docker.io/library/debian:bookworm-slim';

const run = promisify(execFile);

/** True when the container tests must be skipped (no podman and not required). */
export function skipPodmanTests(): boolean {
  if (existsSync(PODMAN_PATH)) return false;
  if (process.env.REQUIRE_PODMAN === '1')
    throw new Error(`REQUIRE_PODMAN=1 but ${PODMAN_PATH} is missing: install it with apt-get install podman runc`);
  console.warn(
    `Skipping the container image tests: ${PODMAN_PATH} is missing (apt-get install podman runc mmdebstrap). ` +
      'In CI, REQUIRE_PODMAN=1 makes this a failure.',
  );
  return true;
}

const containersConf = join(PODMAN_DIR, 'containers.conf');
const storageConf = join(PODMAN_DIR, 'storage.conf');
const deployDoc = () => readFileSync(join(projectDir, 'docs/deploy.md'), 'utf8');

/** podman's settings: docs/deploy.md's containers.conf (runc, ulimits below the hard limits) and
 * the vfs storage in PODMAN_DIR; podman and deploy/base-image.sh find them through this environment. */
function podmanEnv(): NodeJS.ProcessEnv {
  const documented = /```toml\n([\s\S]*?)```/.exec(deployDoc())?.[1];
  if (!documented) throw new Error('docs/deploy.md has no containers.conf block (```toml)');
  mkdirSync(PODMAN_DIR, { recursive: true });
  writeFileSync(containersConf, documented);
  const storage = ['[storage]', 'driver = "vfs"', `graphroot = "${join(PODMAN_DIR, 'storage')}"`];
  writeFileSync(storageConf, [...storage, 'runroot = "/run/treefarm-podman"', ''].join('\n'));
  return { ...process.env, CONTAINERS_CONF: containersConf, CONTAINERS_STORAGE_CONF: storageConf };
}

/** Runs podman to completion; rejects with its output when it fails. */
export async function podman(args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(PODMAN_PATH, args, {
      env: podmanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`podman ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

/** Starts podman as a child process (stdout and stderr piped), for what runs in the foreground. */
export function spawnPodman(args: readonly string[]): ChildProcess {
  return spawn(PODMAN_PATH, args, { env: podmanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Makes BASE_IMAGE with deploy/base-image.sh, as docs/deploy.md says, when podman has none. */
export async function ensureBaseImage(): Promise<void> {
  try {
    await run('sh', [join(projectDir, 'deploy/base-image.sh'), BASE_IMAGE], {
      env: { ...podmanEnv(), PODMAN: PODMAN_PATH },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`deploy/base-image.sh failed:\n${stdout}${stderr}`);
  }
}

/** docs/deploy.md's `podman build` line, its words (it quotes nothing), for `tag` and the checkout. */
function documentedBuild(tag: string): string[] {
  const line = /^podman build (.+)$/m.exec(deployDoc())?.[1];
  if (!line) throw new Error('docs/deploy.md has no `podman build` line');
  const words = line.split(/\s+/);
  const at = words.indexOf('-t');
  if (at < 0 || words.at(-1) !== '.') throw new Error(`docs/deploy.md's podman build has no -t <tag> .: ${line}`);
  words.splice(at, 2, '--tag', tag);
  return [...words.slice(0, -1), projectDir];
}

/**
 * Builds the project's Dockerfile from the checkout as `tag` with docs/deploy.md's command (the
 * base image made first if need be), `extra` options added; rejects with podman's output.
 */
export async function buildImage(tag: string, extra: readonly string[] = []): Promise<void> {
  await ensureBaseImage();
  await podman([
    'build',
    // Never a registry: the base image is the one made here.
    '--pull=never',
    '--quiet',
    // One commit a stage, not one a step: with vfs each commit copies the whole file system.
    '--layers=false',
    // A failed build's containers removed too.
    '--force-rm',
    ...extra,
    ...documentedBuild(tag),
  ]);
  // The image this tag named before is now untagged, and vfs keeps each whole (about 0.5 GB):
  // removed, with the build stage's, so the storage does not grow a build at a time.
  await podman(['image', 'prune', '--force']);
}
