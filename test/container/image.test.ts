// The container image (Dockerfile) as docs/deploy.md builds and runs it: built from this
// checkout with the documented podman build line (on the base deploy/base-image.sh makes), run
// with the port published on loopback. It serves every answer of the build and the wiki, runs
// as a user other than root, reports healthy, reloads on SIGHUP sent to the server's pid in the
// container (its main process: no npm or shell in between) and, stopped, drains and exits 0
// within the drain time. The build refuses, with one line, a tarball other than the pinned one
// and a registry npm cannot use.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LIMITS } from '../../src/server/limits.ts';
import { differencesFrom } from '../support/api-client.ts';
import { readBuild } from '../support/builds.ts';
import { until } from '../support/serve-child.ts';
import { exitOf } from '../support/child-output.ts';
import { halfSentRequest } from '../support/http.ts';
import { distDir, freePort } from '../support/runtimes.ts';
import { buildImage, podman, skipPodmanTests, spawnPodman } from '../support/podman.ts';

const TAG = 'localhost/treefarm-data:test';
const NAME = `treefarm-data-test-${process.pid}`;
const TOKEN = 'container-test-token';
/** The drain time: the server's shutdown grace, in whole seconds as podman stop takes it. */
const DRAIN_SECONDS = Math.ceil(LIMITS.shutdownGraceMs / 1000);

describe.skipIf(skipPodmanTests())('the container image, run with podman', () => {
  let container: ChildProcess;
  let output = '';
  let origin = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  const build = readBuild(distDir);

  beforeAll(async () => {
    await buildImage(TAG);
    const port = await freePort();
    // In the foreground, as `docker run` in a terminal: what the server prints is this child's output.
    container = spawnPodman([
      'run',
      '--rm',
      '--name',
      NAME,
      '--publish',
      `127.0.0.1:${port}:4321`,
      '--env',
      `API_TOKENS=${TOKEN}`,
      '--env',
      'WORKERS=2',
      TAG,
    ]);
    container.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    container.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = exitOf(container);
    let hasExited = false;
    void exited.then(() => (hasExited = true));
    await until(() => output.includes('API:') || hasExited);
    if (hasExited) throw new Error(`the container exited before it served:\n${output}`);
    origin = `http://127.0.0.1:${port}`;
  }, 1_800_000);

  afterAll(async () => {
    if (container && container.exitCode === null) await podman(['rm', '--force', '--time', '0', NAME]).catch(() => {});
  });

  test('it serves on every address of the container, as a user other than root', async () => {
    expect(output).toMatch(/API: +http:\/\/0\.0\.0\.0:4321\/api\//);
    expect((await podman(['exec', NAME, 'id', '-u'])).trim()).not.toBe('0');
  });

  test('its HEALTHCHECK passes once it serves', async () => {
    await expect(podman(['healthcheck', 'run', NAME])).resolves.toBeDefined();
  });

  test("GET /healthz answers ok with the build's data version", async () => {
    const response = await fetch(`${origin}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', dataVersion: build.manifest.version });
  });

  test('the API: a name search, a level search, not found, no token, an unknown endpoint, a wrong method', async () => {
    const get = async (target: string, init: RequestInit = {}) => {
      const response = await fetch(`${origin}${target}`, {
        ...init,
        headers: { Authorization: `Bearer ${TOKEN}`, ...init.headers },
      });
      return {
        status: response.status,
        body: (await response.json()) as { message: string; data?: { name?: string }[] },
      };
    };
    const byName = await get('/api/trees?search=Oak%20Tree');
    expect([byName.status, byName.body.message]).toEqual([200, 'The requested tree data was successfully found.']);
    expect(byName.body.data?.map((record) => record.name)).toEqual(['Oak Tree']);
    expect((await get('/api/gifts?search=1')).body.data).toHaveLength(2);
    expect((await get('/api/trees?search=No%20Such%20Tree')).status).toBe(404);
    expect((await get('/api/trees', { headers: { Authorization: '' } })).status).toBe(401);
    expect((await get('/api/nothing')).status).toBe(404);
    expect((await get('/api/trees', { method: 'DELETE' })).status).toBe(405);
  });

  test("every answer of the API is the build's, byte for byte", { timeout: 300_000 }, async () => {
    expect(await differencesFrom(origin, TOKEN, build)).toEqual([]);
  });

  test('the wiki: its home page, a record page, its search index and the downloads', async () => {
    for (const [path, type] of [
      ['/', 'text/html'],
      ['/trees/oak-tree/', 'text/html'],
      ['/pagefind/pagefind.js', 'application/javascript'],
      ['/downloads/latest.json', 'application/json'],
    ] as const) {
      const response = await fetch(`${origin}${path}`);
      await response.arrayBuffer();
      expect({ path, status: response.status, type: response.headers.get('content-type')?.split(';')[0] }).toEqual({
        path,
        status: 200,
        type,
      });
    }
    expect(await (await fetch(`${origin}/trees/oak-tree/`)).text()).toContain('<h1>Oak Tree</h1>');
  });

  test("SIGHUP to the server's pid in the container reloads every serving process", async () => {
    // The container's main process is node running the server (its supervisor), not npm or a shell.
    expect((await podman(['exec', NAME, 'cat', '/proc/1/cmdline'])).split('\0').filter(Boolean)).toEqual([
      'node',
      'src/server/serve.ts',
    ]);
    await podman(['kill', '--signal', 'SIGHUP', NAME]);
    await until(() => (output.match(/^process \d+: Reloaded: /gm) ?? []).length >= 2 || container.exitCode !== null);
    expect(output.match(/^process \d+: Reloaded: data version (\S+)/gm)).toEqual([
      expect.stringContaining(build.manifest.version),
      expect.stringContaining(build.manifest.version),
    ]);
  });

  test('podman stop drains: a request in flight is answered and the container exits 0 within the drain time', {
    timeout: 120_000,
  }, async () => {
    const inFlight = await halfSentRequest(origin, TOKEN);

    // podman stop sends the image's STOPSIGNAL, and SIGKILL (exit 137) if it has not exited in time.
    const stopped = podman(['stop', '--time', String(DRAIN_SECONDS), NAME]);
    await until(() => output.includes('SIGTERM: finishing in-flight requests') || container.exitCode !== null);
    inFlight.finish();
    await Promise.race([inFlight.closed, exited]);
    const received = inFlight.received().toString('latin1');
    await stopped;

    expect(output).toContain('SIGTERM: finishing in-flight requests in 2 serving processes, then stopping.');
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});

describe.skipIf(skipPodmanTests())('the image build refuses, with one line, what it cannot trust', () => {
  /** The build's output when it fails (podman's error), or a failure of the test when it succeeds. */
  const failedBuild = async (extra: readonly string[]) => {
    const error = await buildImage('localhost/treefarm-data:refused', extra).then(
      () => new Error('the build succeeded'),
      (failure: Error) => failure,
    );
    expect(error.message).toMatch(/^podman build .* failed:/);
    return error.message;
  };
  /** The integrity of an empty file: well formed, and no tarball's. */
  const OTHER_INTEGRITY = `sha512-${createHash('sha512').digest('base64')}`;

  test.each(['NODE_INTEGRITY_X64', 'NPM_INTEGRITY'])(
    'a tarball other than %s pins stops the build',
    {
      timeout: 900_000,
    },
    async (pin) => {
      const output = await failedBuild(['--build-arg', `${pin}=${OTHER_INTEGRITY}`]);
      expect(output).toMatch(
        new RegExp(
          `^check-integrity.sh: ${pin}: the downloaded tarball's sha512 is not the pinned sha512-\\S+: refused$`,
          'm',
        ),
      );
    },
  );

  test('a registry npm cannot reach stops the build before npm ci, naming the reason and the CA secret', {
    timeout: 900_000,
  }, async () => {
    // The registry's name at a closed port in the build's containers; the ADDs are podman's own.
    const output = await failedBuild(['--http-proxy=false', '--add-host', 'registry.npmjs.org:127.0.0.1']);
    const lines = output.split('\n').filter((line) => line.startsWith('npm '));
    expect(lines).toEqual([
      'npm cannot use the registry (connect ECONNREFUSED 127.0.0.1:443): check the network; behind a proxy that ' +
        'inspects TLS, build with --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt (docs/deploy.md)',
    ]);
  });
});
