// The project's container image (Dockerfile) built and run with Debian's podman, as the tests
// and bench:container do. Podman keeps its images in a folder of its own (PODMAN_DIR), so the
// base image, made once with mmdebstrap (no image registry is reachable here) and imported under
// the name the Dockerfile starts from, is kept between runs. Runs as root: runc (crun fails on
// this kernel's cgroups), the vfs storage driver, and ulimits below the machine's hard limits.
// Missing podman: the suite skips locally and fails in CI (REQUIRE_PODMAN=1).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectDir } from '../../src/cli/project-dir.ts';

/** Debian's podman; PODMAN_PATH points elsewhere (or nowhere, to try the skip). */
export const PODMAN_PATH = process.env.PODMAN_PATH ?? '/usr/bin/podman';
const MMDEBSTRAP_PATH = '/usr/bin/mmdebstrap';
/** Podman's storage and settings for the project's tests, kept between runs. */
const PODMAN_DIR = process.env.PODMAN_DIR ?? '/var/tmp/treefarm-podman';
/** The image the Dockerfile starts from (its BASE_IMAGE), made here from Debian's own packages. */
export const BASE_IMAGE = 'docker.io/library/debian:bookworm-slim';
const BASE_SUITE = 'bookworm';

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

/** podman's options before the command: its own storage, with the vfs driver. */
function globalOptions(): string[] {
  if (!existsSync(containersConf)) {
    mkdirSync(PODMAN_DIR, { recursive: true });
    writeFileSync(
      containersConf,
      [
        '[containers]',
        'default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]',
        '[engine]',
        'runtime = "runc"',
        '',
      ].join('\n'),
    );
  }
  return ['--root', join(PODMAN_DIR, 'storage'), '--runroot', '/run/treefarm-podman', '--storage-driver', 'vfs'];
}

const podmanEnv = () => ({ ...process.env, CONTAINERS_CONF: containersConf });

/** Runs podman to completion; rejects with its output when it fails. */
export async function podman(args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(PODMAN_PATH, [...globalOptions(), ...args], {
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
  return spawn(PODMAN_PATH, [...globalOptions(), ...args], { env: podmanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The Debian mirror this machine's apt uses (its sources' first `URIs:` or `deb` line). */
function aptMirror(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const uri = /^URIs:\s*(\S+)/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text)?.[1];
    if (uri) return uri;
  }
  throw new Error('no Debian mirror in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list');
}

/** Makes BASE_IMAGE (Debian's minbase, like the registry's slim image) when podman has none. */
export async function ensureBaseImage(): Promise<void> {
  try {
    await podman(['image', 'exists', BASE_IMAGE]);
    return;
  } catch {
    // Not there yet: made below.
  }
  if (!existsSync(MMDEBSTRAP_PATH))
    throw new Error(`${BASE_IMAGE} is not in podman's storage and ${MMDEBSTRAP_PATH} is missing to make it`);
  const tarball = join(PODMAN_DIR, `base-${process.pid}.tar`);
  try {
    await run(MMDEBSTRAP_PATH, ['--variant=minbase', '--quiet', BASE_SUITE, tarball, aptMirror()], {
      maxBuffer: 64 * 1024 * 1024,
    });
    await podman(['import', '--quiet', tarball, BASE_IMAGE]);
  } finally {
    rmSync(tarball, { force: true });
  }
}

/** The CA bundle this machine trusts (a proxy that inspects TLS may sign the npm registry's certificate). */
function caBundle(): string | undefined {
  return [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find(
    (file): file is string => file !== undefined && file !== '' && existsSync(file),
  );
}

/** Builds the project's Dockerfile from the checkout as `tag` (the base image made first if need be). */
export async function buildImage(tag: string): Promise<void> {
  await ensureBaseImage();
  const ca = caBundle();
  await podman([
    'build',
    '--pull=never',
    '--quiet',
    // Docker's image format: OCI's has no HEALTHCHECK, and podman would drop it.
    '--format',
    'docker',
    // One commit a stage, not one a step: with vfs each commit copies the whole file system.
    '--layers=false',
    ...(ca ? ['--secret', `id=ca-certificates,src=${ca}`] : []),
    '--tag',
    tag,
    '--file',
    join(projectDir, 'Dockerfile'),
    projectDir,
  ]);
  // The image this tag named before is now untagged, and vfs keeps each whole (about 0.5 GB):
  // removed, with the build stage's, so the storage does not grow a build at a time.
  await podman(['image', 'prune', '--force']);
}
