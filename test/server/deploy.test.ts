// `npm run deploy` against wrangler's local R2 simulation (--local): the plan it prints, a dry
// run that changes nothing, an upload of only what the bucket lacks, and a changed record that
// uploads only its own objects.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { deploy } from '../../src/server/deploy-cli.ts';
import { DEFAULT_BUCKET } from '../../src/server/settings.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const temporary = (prefix: string) => {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
};

/** A small build: two bodies, one scope's index, the wiki's page and the build's summary. */
function build(extra: Record<string, string> = {}): string {
  const dist = temporary('deploy-dist-');
  const files = {
    'manifest.json': '{}',
    'index.html': '<h1>wiki</h1>',
    'api/bodies/aaaa': 'body a',
    'api/bodies/bbbb': 'body b',
    'api/index/current/root.json': '{"shards":1}',
    'api/index/current/0.json': '{"trees/list":"aaaa"}',
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  return dist;
}

const persistDir = temporary('deploy-r2-');
const run = async (distDir: string, dryRun: boolean, downloadsAbove?: number) => {
  const lines: string[] = [];
  const missing = await deploy({
    distDir,
    bodies: 'r2',
    bucket: DEFAULT_BUCKET,
    dryRun,
    downloadsAbove,
    localPersistDir: persistDir,
    log: (line) => lines.push(line),
  });
  return { missing, lines };
};

test('a dry run prints the mode, the plan and the figures, and uploads nothing', async () => {
  const dist = build();
  const { missing, lines } = await run(dist, true);
  expect(missing).toBe(4);
  expect(lines).toEqual([
    `Deploy plan for ${dist} (BODIES=r2):`,
    '  assets-only mode: 6 static asset files (largest 0.0 MiB): fits the Workers Free plan.',
    '  R2 mode: 2 static asset files (largest 0.0 MiB): fits the Workers Free plan; ' +
      '4 R2 objects (downloads: 0), 0.0 MiB (largest 0.0 MiB).',
    'Dry run: 4 objects the local bucket lacks; nothing uploaded, nothing deployed.',
  ]);
  // Nothing was put: a real run still finds all four missing.
  expect((await run(dist, false)).missing).toBe(4);
}, 120_000);

test('a second deploy uploads nothing; a changed record uploads only the objects it changed', async () => {
  expect((await run(build(), false)).missing).toBe(0);
  const changed = build({ 'api/bodies/cccc': 'body c', 'api/index/current/0.json': '{"trees/list":"cccc"}' });
  // Its new body and its new index (root and shard under the index's new prefix).
  expect((await run(changed, false)).missing).toBe(3);
}, 120_000);

test('a bundle past R2_DOWNLOADS_ABOVE is counted and uploaded as an R2 object, not a static asset', async () => {
  const dist = build({ 'downloads/latest.json': '{}', 'downloads/treefarm-data-v1.zip': 'a zip of 21 bytes....' });
  const { missing, lines } = await run(dist, true, 20);
  // The zip and its listing beside the four of the API; latest.json stays a static asset.
  expect(lines[2]).toBe(
    '  R2 mode: 3 static asset files (largest 0.0 MiB): fits the Workers Free plan; ' +
      '6 R2 objects (downloads: 1), 0.0 MiB (largest 0.0 MiB).',
  );
  // The bodies are there from the tests before: the zip, the listing and the index under the
  // prefix the listing changed.
  expect(missing).toBe(4);
  expect((await run(dist, false, 20)).missing).toBe(4);
  expect((await run(dist, false, 20)).missing).toBe(0);
}, 120_000);

test('a folder without a build is refused, naming it', async () => {
  const empty = temporary('deploy-empty-');
  await expect(run(empty, true)).rejects.toThrow(`${empty} holds no build: run npm run build first`);
});
