// `npm run bundle:verify -- <archive>`: prints the version and counts of a good bundle,
// exits 1 naming the file at fault in a bad one; with the published digest, refuses any other
// archive; refuses a zip bomb before it costs memory.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundleEntries, packZip } from '../../src/build/bundles.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import {
  BUNDLE_BODIES,
  bundleFileName,
  csvPath,
  DOWNLOADS_DIR,
  SQLITE_FILE,
} from '../../src/contract/bundle-layout.ts';
import { distDir } from '../support/runtimes.ts';
import { MAX_INFLATED_BYTES } from '../../src/client/archive.ts';
import {
  bundleTarGzWith,
  deflatedZeros,
  forgedEntries,
  gzipBomb,
  gzipTrailerChanged,
  sha256,
  writeCapSizedBundle,
  zipOf,
} from '../support/hostile-bundles.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const verify = (...args: string[]) =>
  spawnSync(process.execPath, [join(projectDir, 'src/client/verify-cli.ts'), ...args], {
    encoding: 'utf8',
    cwd: projectDir,
  });

/** The same, not blocking this process: for a server in it to answer the command. */
function verifyAsync(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(projectDir, 'src/client/verify-cli.ts'), ...args], { cwd: projectDir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

let content: Content;
let scratch: string;
beforeAll(() => {
  content = loadContent(join(projectDir, 'content'));
  scratch = temporaryFolder('treefarm-verify-');
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

test('a missing file: exit 1 with a message; no argument: a usage error, exit 2 with the usage line', () => {
  expect(verify(join(scratch, 'absent.tar.gz'))).toMatchObject({
    status: 1,
    stderr: expect.stringContaining('cannot read it') as unknown,
  });
  expect(verify()).toMatchObject({
    status: 2,
    stderr: expect.stringContaining('Usage: npm run bundle:verify') as unknown,
  });
});

describe('the published digest: --sha256 <digest>, or --url <site> to read it from downloads/latest.json', () => {
  const built = () => join(distDir, DOWNLOADS_DIR, bundleFileName(content.version, 'zip'));
  const published = () => sha256(readFileSync(built()));
  /** The bundle with a tree renamed in the API's bodies and the manifest inside recomputed. */
  function forged(): string {
    const dir = temporaryFolder('forged-', scratch);
    const path = join(dir, bundleFileName(content.version, 'zip'));
    const rename = (text: string) => text.replaceAll('"Oak Tree"', '"Forged Tree"');
    writeFileSync(path, packZip(forgedEntries(content, { [BUNDLE_BODIES]: rename })));
    return path;
  }

  test('a forged bundle passes the self-check alone: the manifest inside was forged with it', () => {
    expect(verify(forged())).toMatchObject({ status: 0 });
  });

  test('with --sha256, a forged bundle: exit 1, naming the digest expected and the one found', () => {
    const path = forged();
    const result = verify(path, '--sha256', published());
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `${path}: NOT a valid bundle. The archive is not the one published: its SHA-256 is ` +
        `${sha256(readFileSync(path))}, expected ${published()}. It was changed, damaged, or is another version.\n`,
    );
  });

  test('with --sha256, the bundle published: exit 0, saying so', () => {
    const result = verify(built(), '--sha256', published().toUpperCase());
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`files verified, SHA-256 ${published()} as published`);
  });

  test.each(['abc', 'z'.repeat(64), ''])(
    'a --sha256 that is no digest (%j): a usage error, exit 2, saying what it must be',
    (given) => {
      const result = verify(built(), '--sha256', given);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(
        '--sha256 must be a SHA-256 digest, 64 hexadecimal digits; ' +
          `got ${JSON.stringify(given)} (${given.length} characters).`,
      );
    },
  );

  test('with --url, the digest the site publishes: the bundle built passes, a forged one does not', async () => {
    const latest = readFileSync(join(distDir, DOWNLOADS_DIR, 'latest.json'));
    const server = createServer((request, response) => {
      if (request.url === '/downloads/latest.json') response.end(latest);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const [good, bad] = await Promise.all([
        verifyAsync(built(), '--url', site),
        verifyAsync(forged(), '--url', site),
      ]);
      expect(good).toMatchObject({ status: 0, stdout: expect.stringContaining(`SHA-256 ${published()} as published`) });
      expect(bad).toMatchObject({ status: 1, stderr: expect.stringContaining(`expected ${published()}`) });
    } finally {
      server.close();
    }
  });
});

test('a tar link named as a file it follows (data/trees.json -> /etc/passwd): exit 1, naming it', async () => {
  const path = join(scratch, 'link.tar.gz');
  const link = { name: 'data/trees.json', type: 'symlink', linkname: '/etc/passwd' } as const;
  writeFileSync(path, await bundleTarGzWith(content, [link]));
  const result = verify(path);
  expect({ status: result.status, stderr: result.stderr }).toEqual({
    status: 1,
    stderr:
      `${path}: NOT a valid bundle. data/trees.json is a symbolic link to /etc/passwd: ` +
      'a bundle holds only files and folders.\n',
  });
});

test('a .tar.gz cut before its gzip trailer, which gzip -t refuses: exit 1, saying so', () => {
  const path = join(scratch, 'cut.tar.gz');
  const built = readFileSync(join(distDir, DOWNLOADS_DIR, bundleFileName(content.version, 'tar.gz')));
  writeFileSync(path, gzipTrailerChanged(built, 'cut'));
  const result = verify(path);
  expect({ status: result.status, stderr: result.stderr }).toEqual({
    status: 1,
    stderr: `${path}: NOT a valid bundle. The archive is damaged: its gzip trailer is cut short.\n`,
  });
});

test('escape sequences in an entry name never reach the terminal: the error names it without them', () => {
  const path = join(scratch, 'escapes.zip');
  const name = '\u001b[2J\u001b]0;pwned\u0007evil.json';
  writeFileSync(path, packZip([...bundleEntries(content), { name, bytes: new Uint8Array(1) }]));
  const result = verify(path);
  expect(result.status).toBe(1);
  expect(result.stderr).toBe(
    `${path}: NOT a valid bundle. The bundle holds evil.json, which its manifest does not list.\n`,
  );
});

describe('a zip bomb is refused before it inflates: the memory of the check stays far below the bomb', () => {
  /** The verify command's exit status, message and largest resident set (bytes), in a process of its own. */
  function measured(path: string): { status: number | null; stderr: string; maxRss: number } {
    const hook = join(scratch, 'max-rss.mjs');
    writeFileSync(
      hook,
      "process.on('exit', () => process.stderr.write('maxRSS ' + process.resourceUsage().maxRSS + '\\n'));\n",
    );
    const result = spawnSync(process.execPath, ['--import', hook, join(projectDir, 'src/client/verify-cli.ts'), path], {
      encoding: 'utf8',
      cwd: projectDir,
    });
    const kilobytes = Number(/maxRSS (\d+)/.exec(result.stderr)?.[1]);
    return { status: result.status, stderr: result.stderr, maxRss: kilobytes * 1024 };
  }
  const GIB = 1024 * 1024 * 1024;
  const MIB = 1024 * 1024;
  /** The peak docs/limits.md promises for a bundle at the cap, Node's own memory included: twice the cap. */
  const PROMISED_PEAK = 2 * MAX_INFLATED_BYTES;

  test.each(['tar.gz', 'zip'] as const)(
    `a %s bundle at the inflation cap: read and verified within ${PROMISED_PEAK / MIB} MiB, as docs/limits.md promises`,
    async (format) => {
      const path = join(scratch, `cap.${format}`);
      const inflated = await writeCapSizedBundle(content, path, format, 4096);
      expect(inflated).toBe(MAX_INFLATED_BYTES - 4096);
      const { status, stderr, maxRss } = measured(path);
      expect({ status, stderr: stderr.replace(/maxRSS \d+\n/, '') }).toEqual({ status: 0, stderr: '' });
      expect(maxRss).toBeLessThan(PROMISED_PEAK);
    },
    120_000,
  );

  test.each([
    ['tar.gz', () => gzipBomb(1024)],
    ['zip', () => zipOf([{ name: 'data/trees.json', data: deflatedZeros(1024), size: GIB, crc: 0 }])],
  ])('a %s of 1 MiB that inflates to 1 GiB', (format, bomb) => {
    const path = join(scratch, `bomb.${format}`);
    writeFileSync(path, bomb());
    const { status, stderr, maxRss } = measured(path);
    expect({ status, refused: stderr.includes('refused as a zip bomb') }).toEqual({ status: 1, refused: true });
    // Node itself takes some 60 MiB; the check may keep 50 MiB of a 1 MiB archive, and the
    // inflater's buffers of the slices before the refusal wait for the garbage collector.
    expect(maxRss).toBeLessThan(GIB / 2);
  });
});
