// `npm run deploy` against wrangler's local R2 simulation (--local): the plan it prints, a dry
// run that changes nothing, an upload of only what the bucket lacks, and a changed record that
// uploads only its own objects. Then, with a bucket in memory: a stale build built first (a dry
// run builds nothing), an interrupted upload and a bucket that cannot be read.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Rebuildable } from '../../src/build/site.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bucketPlan, uploadMissing } from '../../src/cloudflare/bucket-objects.ts';
import { type DeployOptions, deploy } from '../../src/cloudflare/deploy-cli.ts';
import { WORKER_ROUTES } from '../../src/cloudflare/r2-run.ts';
import { DEFAULT_BUCKET } from '../../src/server/settings.ts';
import { exitOf, outputUntil } from '../support/child-output.ts';
import { type LocalBucket, withLocalBucket } from '../support/local-bucket.ts';
import { type MemoryBucket, memoryBucket } from '../support/memory-bucket.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const temporary = temporaryFolders();

/** A small build: two bodies, one scope's index, the wiki's page and the build's summary. */
function build(extra: Record<string, string> = {}, dist = temporary('deploy-dist-')): string {
  const files = {
    'manifest.json': '{}',
    'index.html': '<h1>wiki</h1>',
    'api/bodies/aaaa': 'body a',
    'api/bodies/bbbb': 'body b',
    'api/index/current/root.json': '{"version":"v1","shards":1,"nearGroup":3}',
    'api/index/current/0.json': '{"trees/list":"aaaa"}',
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  return dist;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const persistDir = temporary('deploy-r2-');
const run = async (distDir: string, dryRun: boolean, downloadsAbove?: number, localPersistDir = persistDir) => {
  const lines: string[] = [];
  const counted = await deploy({
    distDir,
    bodies: 'r2',
    bucket: DEFAULT_BUCKET,
    dryRun,
    downloadsAbove,
    localPersistDir,
    log: (line) => lines.push(line),
  });
  return { ...counted, lines };
};

test('a dry run prints the mode, the plan and the figures, and uploads nothing', async () => {
  const dist = build();
  const { missing, lines } = await run(dist, true);
  // Two bodies, the shard, the scope's root and the deploy object.
  expect(missing).toBe(5);
  expect(lines).toEqual([
    `Deploy plan for ${dist} (BODIES=r2):`,
    '  assets-only mode: 6 static asset files (largest 0.0 MiB): fits the Workers Free plan.',
    '  R2 mode: 2 static asset files (largest 0.0 MiB): fits the Workers Free plan; ' +
      '5 R2 objects (downloads: 0), 0.0 MiB (largest 0.0 MiB).',
    `Comparing the build's 5 objects with the local R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET).`,
    `Dry run: 5 objects the local R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET) lacks; ` +
      'nothing uploaded, nothing deployed.',
  ]);
  // Nothing was put: a real run still finds all five missing.
  expect((await run(dist, false)).missing).toBe(5);
}, 120_000);

test('a second deploy uploads nothing; a changed record uploads only the objects it changed', async () => {
  expect((await run(build(), false)).missing).toBe(0);
  const changed = build({ 'api/bodies/cccc': 'body c', 'api/index/current/0.json': '{"trees/list":"cccc"}' });
  // Its new body, the shard that names it, the scope root that names the shard and a new deploy object.
  expect((await run(changed, false)).missing).toBe(4);
}, 120_000);

/** Runs `use` with wrangler's local R2 bucket of these tests, through its binding as the deploy reaches it. */
const withTestBucket = <T>(use: (bucket: LocalBucket) => Promise<T>) =>
  withLocalBucket(persistDir, DEFAULT_BUCKET, use);

test('an object the bucket holds with other bytes than its key names is put again by the next deploy', async () => {
  const dist = build();
  expect((await run(dist, false)).missing).toBe(0);
  // A bad write: the body's key, other bytes.
  await withTestBucket((bucket) => bucket.put('bodies/aaaa', new TextEncoder().encode('body').buffer).then(() => {}));
  const { missing, corrupt, lines } = await run(dist, false);
  expect({ missing, corrupt }).toEqual({ missing: 1, corrupt: 1 });
  expect(lines.at(-1)).toBe(
    `Uploaded 1 objects the local R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET) lacked (1 of them there with ` +
      `other bytes than their key names) (API_INDEX=${bucketPlan(dist).indexId}).`,
  );
  await withTestBucket(async (bucket) => expect(await (await bucket.get('bodies/aaaa'))?.text()).toBe('body a'));
  expect((await run(dist, false)).missing).toBe(0);
}, 120_000);

test('a bundle past R2_DOWNLOADS_ABOVE is counted and uploaded as an R2 object, not a static asset', async () => {
  const dist = build({ 'downloads/latest.json': '{}', 'downloads/treefarm-data-v1.zip': 'a zip of 21 bytes....' });
  const { missing, lines } = await run(dist, true, 20);
  // The zip beside the five of the API (the deploy object lists it); latest.json stays a static asset.
  expect(lines[2]).toBe(
    '  R2 mode: 3 static asset files (largest 0.0 MiB): fits the Workers Free plan; ' +
      '6 R2 objects (downloads: 1), 0.0 MiB (largest 0.0 MiB).',
  );
  // The bodies and the index are there from the tests before: the zip, and the deploy object
  // that lists it.
  expect(missing).toBe(2);
  expect((await run(dist, false, 20)).missing).toBe(2);
  expect((await run(dist, false, 20)).missing).toBe(0);
}, 120_000);

test('a folder without a build is refused, naming it', async () => {
  const empty = temporary('deploy-empty-');
  await expect(run(empty, true)).rejects.toThrow(`${empty} holds no build: run npm run build first`);
});

/** A deploy of a build to a bucket in memory (with --local's paths, so no Worker is deployed). */
const runInMemory = async (bucket: MemoryBucket, distDir: string, more: Partial<DeployOptions> = {}) => {
  const lines: string[] = [];
  const counted = await deploy({
    distDir,
    bodies: 'r2',
    bucket: DEFAULT_BUCKET,
    dryRun: false,
    localPersistDir: persistDir,
    upload: (plan, dryRun) => uploadMissing(bucket, plan, dryRun),
    log: (line) => lines.push(line),
    ...more,
  });
  return { ...counted, lines };
};

describe('a stale build is built first, saying why; a dry run builds nothing', () => {
  const why = 'content/trees/oak-tree.yaml changed since the last build';
  /** The project's build as a stand-in: stale until built, its build writing a small one into `dist`. */
  const staleSource = (dist: string): Rebuildable & { builds: number } => {
    const source = {
      builds: 0,
      staleReason: () => (source.builds === 0 ? why : undefined),
      build: async () => {
        source.builds++;
        build({}, dist);
      },
    };
    return source;
  };

  test('a deploy builds first, saying why, then plans and uploads the new build', async () => {
    const dist = temporary('deploy-unbuilt-');
    const source = staleSource(dist);
    const { missing, lines } = await runInMemory(memoryBucket(), dist, { source });
    expect(source.builds).toBe(1);
    expect(lines.slice(0, 2)).toEqual([`Building first: ${why}.`, `Deploy plan for ${dist} (BODIES=r2):`]);
    expect(missing).toBe(5);
  });

  test('a build that is up to date is not built again', async () => {
    const source = { staleReason: () => undefined, build: async () => expect.unreachable('built') };
    const { lines } = await runInMemory(memoryBucket(), build(), { source });
    expect(lines[0]).toMatch(/^Deploy plan for /);
  });

  test('a dry run of a stale build builds nothing: it says so and plans the build as it is', async () => {
    const dist = build();
    const source = staleSource(dist);
    const { missing, lines } = await runInMemory(memoryBucket(), dist, { source, dryRun: true });
    expect(source.builds).toBe(0);
    expect(lines[0]).toBe(
      `Dry run: not building, though ${why}: the plan of the build as it is, which a deploy rebuilds.`,
    );
    expect(lines[1]).toBe(`Deploy plan for ${dist} (BODIES=r2):`);
    expect(missing).toBe(5);
  });

  test('a dry run with no build at all refuses, naming the folder, and builds nothing', async () => {
    const dist = temporary('deploy-unbuilt-');
    const source = staleSource(dist);
    await expect(runInMemory(memoryBucket(), dist, { source, dryRun: true })).rejects.toThrow(
      `${dist} holds no build: run npm run build first`,
    );
    expect(source.builds).toBe(0);
  });
});

describe("wrangler.toml's [vars] are checked by the Worker's own rules before anything is built or uploaded", () => {
  const KEY = 'a'.repeat(64);
  /** A folder with the project's wrangler.toml, these lines added under [vars]. */
  const configWith = (vars: string): string => {
    const dir = temporary('deploy-config-');
    const shipped = readFileSync(join(projectDir, 'wrangler.toml'), 'utf8');
    writeFileSync(join(dir, 'wrangler.toml'), `${shipped}\n[vars]\n${vars}\n`);
    return dir;
  };
  /** A deploy of a stale build with `configDir`, recording what it built, uploaded and ran. */
  const attempt = async (configDir: string, more: Partial<DeployOptions>) => {
    const done: string[] = [];
    const lines: string[] = [];
    const outcome = deploy({
      distDir: build(),
      bodies: 'r2',
      bucket: DEFAULT_BUCKET,
      dryRun: false,
      configDir,
      source: { staleReason: () => 'stale', build: async () => void done.push('built') },
      upload: async () => {
        done.push('uploaded');
        return { missing: 0, corrupt: 0 };
      },
      wrangler: (args) => void done.push(`wrangler ${args[0]}`),
      log: (line) => lines.push(line),
      ...more,
    });
    return { outcome, done, lines };
  };

  test.for([
    { mode: 'r2', dryRun: false },
    { mode: 'r2', dryRun: true },
    { mode: 'assets', dryRun: false },
    { mode: 'assets', dryRun: true },
  ] as const)(
    'a malformed value is refused, naming the variable and the value (BODIES=$mode, dry run $dryRun)',
    async ({ mode, dryRun }) => {
      const dir = configWith('DISCORD_PUBLIC_KEY = "abc"');
      const { outcome, done, lines } = await attempt(dir, { bodies: mode, dryRun });
      await expect(outcome).rejects.toThrow(
        `${join(dir, 'wrangler.toml')} [vars]: DISCORD_PUBLIC_KEY must be the Discord application's public key: ` +
          '64 hex digits, got "abc". The deployed Worker would find the same',
      );
      expect({ done, lines }).toEqual({ done: [], lines: [] });
    },
  );

  test("a secret's malformed value is named by its variable, the value not shown", async () => {
    const { outcome } = await attempt(configWith('API_TOKEN_SHA256 = "not-a-digest-3f9a"'), {});
    const error = await outcome.then(
      () => expect.unreachable('deployed'),
      (reason: unknown) => reason as Error,
    );
    expect(error.message).toContain('API_TOKEN_SHA256 entry 1 is not 64 lowercase hex digits');
    expect(error.message).not.toContain('3f9a');
  });

  test('every malformed variable is named at once, a number where the Worker reads text among them', async () => {
    const { outcome } = await attempt(configWith('API_RATE_LIMIT = 100\nDISCORD_PUBLIC_KEY = "xyz"'), {});
    await expect(outcome).rejects.toThrow(
      'API_RATE_LIMIT must be a quoted string, got 100; DISCORD_PUBLIC_KEY must be',
    );
  });

  test('well-formed values pass: the deploy goes on to build, upload and deploy', async () => {
    const dir = configWith(`DISCORD_PUBLIC_KEY = "${KEY}"\nAPI_RATE_LIMIT = "100/60s"\nOTHER = 5`);
    const { outcome, done } = await attempt(dir, { localPersistDir: undefined });
    await outcome;
    expect(done).toEqual(['built', 'uploaded', 'wrangler deploy']);
  });
});

test('an interrupted upload names the object and the bucket; a second run puts exactly the rest', async () => {
  const bucket = memoryBucket();
  const deployed = build();
  expect((await runInMemory(bucket, deployed)).missing).toBe(5);
  const before = new Map(bucket.objects);
  // Two new bodies, the shard naming them, the scope root naming it and a new deploy object.
  const shard = '{"trees/list":"cccc","cutters/list":"dddd"}';
  const next = build({ 'api/bodies/cccc': 'body c', 'api/bodies/dddd': 'body d', 'api/index/current/0.json': shard });
  const plan = bucketPlan(next);
  const nextRoot = plan.objects.find(({ key }) => key.startsWith('index/roots/'))?.key;
  bucket.putsLeft = 3;
  await expect(runInMemory(bucket, next)).rejects.toThrow(
    `the upload to the local R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET) stopped: ` +
      `${nextRoot} could not be put (Network connection lost.); ` +
      '3 of the 5 missing objects were put before it. The Worker was not deployed: the version deployed ' +
      'before still serves, its objects untouched. Run npm run deploy again to put the 2 objects still missing.',
  );
  // What others name goes first: the bodies and the shard are in, no root or deploy object names
  // what is missing. What the deployed Worker (API_INDEX of the first build) reads is all there,
  // byte for byte.
  const added = [...bucket.objects.keys()].filter((key) => !before.has(key));
  expect(added.sort()).toEqual(['bodies/cccc', 'bodies/dddd', `index/shards/${sha256(shard)}`]);
  for (const [key, bytes] of before) expect(bucket.objects.get(key)).toEqual(bytes);
  // A second run puts exactly the two still missing, and then the whole of the new build is there.
  bucket.putsLeft = Number.POSITIVE_INFINITY;
  const { missing, lines } = await runInMemory(bucket, next);
  expect(missing).toBe(2);
  expect(lines.at(-1)).toBe(
    `Uploaded 2 objects the local R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET) lacked ` +
      `(API_INDEX=${plan.indexId}).`,
  );
  for (const { key } of bucketPlan(next).objects) expect(bucket.objects.has(key)).toBe(true);
});

test("wrangler deploy is given the run's config alone: assets without api/, routes, bucket, index", async () => {
  const bucket = memoryBucket();
  const dist = build();
  const deployed: { args: string[]; config: Record<string, unknown>; assets: string[] }[] = [];
  await runInMemory(bucket, dist, {
    localPersistDir: undefined,
    // Read while wrangler would run: the run's files are removed once the deploy is done.
    wrangler: (args) => {
      const config = JSON.parse(readFileSync(args[2] ?? '', 'utf8')) as { assets: { directory: string } };
      deployed.push({ args, config, assets: readdirSync(config.assets.directory).sort() });
    },
  });
  expect(deployed).toEqual([
    {
      args: ['deploy', '--config', expect.stringMatching(/\/wrangler\.json$/)],
      config: expect.objectContaining({
        assets: expect.objectContaining({ run_worker_first: WORKER_ROUTES }),
        r2_buckets: [{ binding: 'API_BUCKET', bucket_name: DEFAULT_BUCKET, remote: true }],
        vars: { API_INDEX: bucketPlan(dist).indexId },
      }),
      assets: ['index.html', 'manifest.json'],
    },
  ]);
});

test('a bucket that cannot be read is named, with the command that creates it', async () => {
  const failing = async () => {
    // What R2 answers for a bucket that does not exist (error 10006).
    throw new Error('The specified bucket does not exist. (10006)');
  };
  // Not --local: Cloudflare's bucket, which the command creates; the deploy stops before the Worker.
  const refused = deploy({
    distDir: build(),
    bodies: 'r2',
    bucket: 'treefarm-missing',
    dryRun: false,
    upload: failing,
    wrangler: () => expect.unreachable('deployed'),
    log: () => undefined,
  });
  await expect(refused).rejects.toThrow(
    'the R2 bucket "treefarm-missing" (binding API_BUCKET) could not be read (The specified bucket does not ' +
      'exist. (10006)); if it does not exist, create it with npx wrangler r2 bucket create treefarm-missing',
  );
});

test('a dry run without --local reads no remote bucket: no login, no session with Cloudflare', async () => {
  const lines: string[] = [];
  const counted = await deploy({
    distDir: build(),
    bodies: 'r2',
    bucket: DEFAULT_BUCKET,
    dryRun: true,
    upload: () => expect.unreachable('the bucket was read'),
    wrangler: () => expect.unreachable('deployed'),
    log: (line) => lines.push(line),
  });
  expect(counted).toBeUndefined();
  expect(lines.at(-1)).toBe(
    `Dry run: the R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET) is not read (that takes a login and a ` +
      'session with Cloudflare): a deploy puts those of the 5 objects it lacks; nothing uploaded, nothing deployed.',
  );
});

test('a dry run with --local writes nothing: no local state where there was none, an old one unchanged', async () => {
  const fresh = join(temporary('deploy-fresh-'), 'state');
  expect((await run(build(), true, undefined, fresh)).missing).toBe(5);
  expect(existsSync(fresh)).toBe(false);
  // The state the tests above filled: every file as it was, and a count read from it.
  const files = () =>
    readdirSync(persistDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return `${path} ${statSync(path).size} ${statSync(path).mtimeMs}`;
      })
      .sort();
  const before = files();
  expect(before.length).toBeGreaterThan(0);
  expect((await run(build({ 'api/bodies/eeee': 'body e' }), true)).missing).toBe(1);
  expect(files()).toEqual(before);
}, 120_000);

test('the assets-only mode of a build that fits no Workers plan is refused, pointing to BODIES=r2', async () => {
  const dist = build();
  // One body past the 25 MiB of a static asset (a sparse file: no 25 MiB written).
  truncateSync(join(dist, 'api/bodies/aaaa'), 26 * 1024 * 1024);
  const lines: string[] = [];
  const refused = deploy({
    distDir: dist,
    bodies: 'assets',
    bucket: DEFAULT_BUCKET,
    dryRun: true,
    log: (line) => lines.push(line),
  });
  await expect(refused).rejects.toThrow('the assets-only mode fits no Workers plan: deploy with BODIES=r2');
  expect(lines[1]).toBe(
    '  assets-only mode: 6 static asset files (largest 26.0 MiB): fits no Workers plan: this build needs the R2 mode.',
  );
});

test('--local deploys nothing in the assets-only mode either: wrangler is never run', async () => {
  const called: string[][] = [];
  const lines: string[] = [];
  await deploy({
    distDir: build(),
    bodies: 'assets',
    bucket: DEFAULT_BUCKET,
    dryRun: false,
    localPersistDir: persistDir,
    wrangler: (args) => called.push(args),
    log: (line) => lines.push(line),
  });
  expect(called).toEqual([]);
  expect(lines.at(-1)).toBe(
    '--local: nothing deployed, and this mode has no bucket to fill (npm run worker serves it).',
  );
});

describe('npm run deploy, the command', () => {
  /**
   * `npm run deploy` with these arguments and variables as a child process, with a temporary
   * folder of its own (TMPDIR) and no Cloudflare login: another HOME, no CLOUDFLARE_ variable.
   */
  const deployCli = (args: string[], env: Record<string, string>) => {
    const tmp = temporary('deploy-tmp-');
    const inherited = Object.entries(process.env).filter(([name]) => !/^(CLOUDFLARE|CF)_/.test(name));
    const child = spawn(process.execPath, ['src/cloudflare/deploy-cli.ts', ...args], {
      cwd: projectDir,
      env: { ...Object.fromEntries(inherited), HOME: tmp, XDG_CONFIG_HOME: tmp, TMPDIR: tmp, CI: '1', ...env },
    });
    const ours = () => readdirSync(tmp).filter((name) => name.startsWith('treefarm-'));
    return { child, ours };
  };

  test('Ctrl-C partway through a deploy leaves none of its temporary folders', async () => {
    const { child, ours } = deployCli(['--local', '--dry-run'], { BODIES: 'r2', DIST_DIR: build() });
    await outputUntil(child, /^Comparing the build's \d+ objects with /m);
    // Mid-work: the run's wrangler config and its staged assets are there (and, once the dry run
    // has begun counting, its copy of the local bucket).
    const kinds = ours().map((name) => name.replace(/-\w+$/, '-'));
    expect(kinds).toEqual(expect.arrayContaining(['treefarm-assets-', 'treefarm-worker-']));
    child.kill('SIGINT');
    expect(await exitOf(child)).toEqual({ code: 130, signal: null });
    expect(ours()).toEqual([]);
  }, 60_000);

  test('a deploy that cannot log in to Cloudflare says so, and does not blame the bucket', async () => {
    const { child } = deployCli([], { BODIES: 'r2', DIST_DIR: build() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toEqual({ code: 1, signal: null });
    expect(stderr).toContain(
      `Cannot deploy: the R2 bucket "${DEFAULT_BUCKET}" (binding API_BUCKET) was not reached: wrangler could not ` +
        'open its session with Cloudflare (',
    );
    expect(stderr).toMatch(/: check the login \(npx wrangler login, or CLOUDFLARE_API_TOKEN\) and the network\n$/);
    expect(stderr).not.toContain('r2 bucket create');
  }, 60_000);
});
