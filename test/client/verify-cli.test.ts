// `npm run bundle:verify -- <archive>`: prints the version and counts of a good bundle,
// exits 1 naming the file at fault in a bad one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bundleEntries, DOWNLOADS_DIR, packZip } from '../../src/build/bundles.ts';
import { projectDir } from '../../src/build/site.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import { BUNDLE_BODIES, bundleFileName, csvPath, SQLITE_FILE } from '../../src/contract/bundle-layout.ts';
import { distDir } from '../support/runtimes.ts';

const verify = (...args: string[]) =>
  spawnSync(process.execPath, [join(projectDir, 'src/client/verify-cli.ts'), ...args], {
    encoding: 'utf8',
    cwd: projectDir,
  });

let content: Content;
let scratch: string;
beforeAll(() => {
  content = loadContent(join(projectDir, 'content'));
  scratch = mkdtempSync(join(tmpdir(), 'treefarm-verify-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test.each(['tar.gz', 'zip'] as const)('a good %s bundle: exit 0, its version and the count of every kind', (format) => {
  const result = verify(join(distDir, DOWNLOADS_DIR, bundleFileName(content.version, format)));
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(`OK, data version ${content.version}`);
  for (const [kind, entries] of Object.entries(content.entries))
    expect(result.stdout).toMatch(new RegExp(`${kind}\\s+${entries.length}\\n`));
});

/** A zip of the bundle's entries with one file's bytes replaced, its manifest left as built. */
function tamperedZip(name: string, replace: (bytes: Uint8Array) => Uint8Array): string {
  const entries = bundleEntries(content).map((entry) =>
    entry.name === name ? { name: entry.name, bytes: replace(entry.bytes) } : entry,
  );
  const path = join(scratch, `tampered-${entries.findIndex((entry) => entry.name === name)}.zip`);
  writeFileSync(path, packZip(entries));
  return path;
}

test('a tampered bundle: exit 1, naming the file', () => {
  const result = verify(tamperedZip('data/vehicles.json', () => new TextEncoder().encode(' ')));
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('NOT a valid bundle');
  expect(result.stderr).toContain('data/vehicles.json does not match the bundle manifest');
});

test.each([SQLITE_FILE, csvPath('gifts')])('a tampered %s: exit 1, naming it', (name) => {
  const result = verify(tamperedZip(name, (bytes) => bytes.subarray(1)));
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`${name} does not match the bundle manifest`);
});

test('a file tampered at the same size (sha256 differs, size does not): exit 1, naming the file', () => {
  // A level of the trees list, in the file of the API's bodies.
  const name = BUNDLE_BODIES;
  const path = tamperedZip(name, (bytes) => {
    const changed = new TextEncoder().encode(new TextDecoder().decode(bytes).replace('"level":1,', '"level":7,'));
    expect(changed.length).toBe(bytes.length);
    return changed;
  });
  const result = verify(path);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`${name} does not match the bundle manifest`);
});

test('a missing file or no argument: exit 1 with a message', () => {
  expect(verify(join(scratch, 'absent.tar.gz'))).toMatchObject({
    status: 1,
    stderr: expect.stringContaining('cannot read it') as unknown,
  });
  expect(verify()).toMatchObject({
    status: 1,
    stderr: expect.stringContaining('Usage: npm run bundle:verify') as unknown,
  });
});
