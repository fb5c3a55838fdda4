// What `wrangler deploy` uploads of the Worker npm run worker:build made (wrangler.toml's main,
// find_additional_modules and rules): the main module with the apps left as modules of their own,
// loaded by import() when their first request comes, so every isolate compiles the API's path
// alone. `wrangler deploy --dry-run --outdir` writes the modules it would upload.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { MOUNTS } from '../../src/apps/mounts.ts';
import { wranglerBin } from '../../src/cloudflare/deploy-cli.ts';
import { keepWranglerLocal } from '../../src/cloudflare/wrangler-local.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const temporaryFolder = temporaryFolders();
let main: string;
let chunks: string[];

beforeAll(() => {
  keepWranglerLocal();
  const outDir = temporaryFolder('treefarm-worker-upload-');
  const run = spawnSync(process.execPath, [wranglerBin, 'deploy', '--dry-run', '--outdir', outDir], {
    cwd: projectDir,
    encoding: 'utf8',
    env: { ...process.env, CI: '1' },
  });
  if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${run.stdout}\n${run.stderr}`);
  main = readFileSync(join(outDir, 'worker.js'), 'utf8');
  chunks = readdirSync(join(outDir, 'chunks')).filter((name) => name.endsWith('.js'));
}, 300_000);

/** The modules a module names in its imports, static and import(). */
const importsOf = (text: string) =>
  [...text.matchAll(/(?:from\s*|import\s*\(\s*)"(\.\/[^"]+)"/g)].map((match) => match[1] ?? '');

test('each app is a module of its own in the upload, imported by the main module when its first request comes', () => {
  const lazy = [...main.matchAll(/import\s*\(\s*"\.\/chunks\/([^"]+)"\s*\)/g)].map((match) => match[1]);
  // One lazily imported module per app of the table (each app's module is named app.ts in its folder).
  expect(new Set(lazy).size).toBe(MOUNTS.length);
  for (const name of lazy) expect(chunks).toContain(name);
});

test('no built module is bundled again into the main module: it imports them as they are', () => {
  // esbuild marks each file it bundles with a comment naming it; the built chunks must not be among them.
  expect(main).not.toMatch(/^\/\/ build\/worker\/chunks\//m);
  for (const imported of importsOf(main)) expect(chunks).toContain(imported.replace('./chunks/', ''));
});
