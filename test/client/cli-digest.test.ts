// `treefarm --bundle <file>` with the archive's published SHA-256: `--sha256 <digest>`, or
// `--url <site>` to read it from the site's downloads/latest.json. Run in this process (run()),
// against a server that publishes the build's latest.json.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packZip } from '../../src/build/bundles.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import {
  BUNDLE_BODIES,
  bundleFileName,
  DOWNLOADS_DIR,
  LATEST_FILE,
  PUBLISHED_BUNDLES,
} from '../../src/contract/bundle-layout.ts';
import { run } from '../../src/client/cli/main.ts';
import { distDir } from '../support/runtimes.ts';
import { forgedEntries, sha256 } from '../support/hostile-bundles.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

let content: Content;
let scratch: string;
let server: Server;
let site: string;
beforeAll(async () => {
  content = loadContent(join(projectDir, 'content'));
  scratch = temporaryFolder('treefarm-digest-');
  const latest = readFileSync(join(distDir, DOWNLOADS_DIR, LATEST_FILE));
  server = createServer((request, response) => {
    if (request.url === `/${PUBLISHED_BUNDLES}`) response.end(latest);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const name = () => bundleFileName(content.version, 'zip');
const built = () => join(distDir, DOWNLOADS_DIR, name());
const published = () => sha256(readFileSync(built()));

/** The bundle under its published name, a tree renamed and the manifest inside recomputed. */
function forged(): string {
  const path = join(temporaryFolder('forged-', scratch), name());
  const rename = (text: string) => text.replaceAll('"Oak Tree"', '"Forged Tree"');
  writeFileSync(path, packZip(forgedEntries(content, { [BUNDLE_BODIES]: rename })));
  return path;
}

async function treefarm(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run({ argv, env: {}, out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('--sha256 <digest>', () => {
  test('the bundle published answers', async () => {
    const { code, out } = await treefarm('trees', '69', '--bundle', built(), '--sha256', published());
    expect(code).toBe(0);
    expect(out).toMatch(/^name +Oak Tree$/m);
  });

  test('a forged bundle: exit 2, naming the digest expected and the one found', async () => {
    const path = forged();
    expect(await treefarm('trees', '69', '--bundle', path, '--sha256', published())).toEqual({
      code: 2,
      out: '',
      err:
        `treefarm: The archive is not the one published: its SHA-256 is ${sha256(readFileSync(path))}, ` +
        `expected ${published()}. It was changed, damaged, or is another version.`,
    });
  });

  test('a digest that is not 64 hexadecimal digits: a usage error saying so', async () => {
    const { code, err } = await treefarm('trees', '--bundle', built(), '--sha256', 'abc');
    expect({ code, err }).toEqual({
      code: 2,
      err:
        'treefarm: --sha256 must be a SHA-256 digest, 64 hexadecimal digits; got "abc" (3 characters).\n' +
        'Usage: treefarm <command> [arguments] [options] (treefarm --help lists the commands)',
    });
  });

  test('without --bundle: a usage error, there is no archive to check', async () => {
    const { code, err } = await treefarm('trees', '--sha256', published());
    expect({ code, err: err.split(' (')[0] }).toEqual({
      code: 2,
      err:
        'treefarm: --sha256 is the digest of a bundle: give the bundle with --bundle <file>\n' +
        'Usage: treefarm <command> [arguments] [options]',
    });
  });
});

describe('--url <site> with --bundle: the digest the site publishes for the file name', () => {
  test('the bundle published answers', async () => {
    const { code, out } = await treefarm('trees', '69', '--bundle', built(), '--url', site);
    expect(code).toBe(0);
    expect(out).toMatch(/^name +Oak Tree$/m);
  });

  test('a forged bundle under the published name is refused', async () => {
    const { code, err } = await treefarm('trees', '69', '--bundle', forged(), '--url', site);
    expect(code).toBe(2);
    expect(err).toContain(`expected ${published()}`);
  });

  test('a file name the site does not list: exit 2, naming the names it lists', async () => {
    const renamed = join(scratch, 'renamed.zip');
    copyFileSync(built(), renamed);
    const { code, err } = await treefarm('trees', '--bundle', renamed, '--url', site);
    expect(code).toBe(2);
    expect(err).toContain(`${site}/${PUBLISHED_BUNDLES} lists no bundle named renamed.zip (it lists `);
  });
});
