// The examples that show how to open a bundle, run as their readers would: docs/bundles.md's and
// the downloads page's Python (sqlite3, csv) with python3 in the unpacked bundle, and their
// openBundle examples in a plain-JavaScript project that installed the packed client. Every
// `# → text` or `// → text` comment is a line the example must print.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { readArchive } from '../../src/client/archive.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { installedClient, type InstalledClient } from '../support/packed-client.ts';
import { distDir } from '../support/runtimes.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const runFile = promisify(execFile);
const version = loadContent(join(projectDir, 'content')).version;
const tarball = bundleFileName(version, 'tar.gz');
const guide = readFileSync(join(projectDir, 'docs', 'bundles.md'), 'utf8');
const page = readFileSync(join(distDir, 'downloads', 'index.html'), 'utf8');

/** The code of docs/bundles.md's fenced block whose info string is `info` ("python sqlite"). */
function guideBlock(info: string): string {
  const block = [...guide.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].find(([, found]) => found?.trim() === info);
  if (!block?.[2]) throw new Error(`docs/bundles.md has no \`\`\`${info} block`);
  return block[2];
}

const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

/** The code of the downloads page's example `id` (its <pre data-example>), as the reader sees it. */
function pageExample(id: string): string {
  const code = new RegExp(`<pre data-example="${id}"><code>([\\s\\S]*?)</code></pre>`).exec(page)?.[1];
  if (code === undefined) throw new Error(`the downloads page has no example ${id}`);
  return code.replace(/&(lt|gt|quot|#39|#x27);/g, (entity) => entities[entity] ?? entity).replaceAll('&amp;', '&');
}

/** What the code says it prints: the text after each `# → ` or `// → `, in order. */
const expectedOutput = (code: string) => [...code.matchAll(/(?:#|\/\/) → (.*)$/gm)].map(([, text]) => text ?? '');

let unpacked: string;
let client: InstalledClient;
beforeAll(async () => {
  unpacked = temporaryFolder('treefarm-unpacked-');
  for (const [path, bytes] of await readArchive(readFileSync(join(distDir, 'downloads', tarball)))) {
    mkdirSync(dirname(join(unpacked, path)), { recursive: true });
    writeFileSync(join(unpacked, path), bytes);
  }
  client = await installedClient();
  copyFileSync(join(distDir, 'downloads', tarball), join(client.project, tarball));
});
afterAll(() => rmSync(unpacked, { recursive: true, force: true }));

async function runPython(code: string): Promise<{ stdout: string[]; stderr: string }> {
  const script = join(unpacked, 'example.py');
  writeFileSync(script, code);
  const { stdout, stderr } = await runFile('python3', ['-I', script], { cwd: unpacked });
  return { stdout: stdout.trimEnd().split('\n'), stderr };
}

async function runJavaScript(code: string): Promise<{ stdout: string[]; stderr: string }> {
  const script = join(client.project, 'bundle-example.mjs');
  writeFileSync(script, code);
  const { stdout, stderr } = await runFile(process.execPath, [script], { cwd: client.project });
  return { stdout: stdout.trimEnd().split('\n'), stderr };
}

describe.each([
  { where: 'bundles guide', code: guideBlock },
  { where: 'downloads page', code: (id: string) => pageExample(id.replace(' ', '-')) },
])('the $where', ({ code }) => {
  test.each(['python sqlite', 'python csv'])(
    'the %s example runs with python3’s standard library and prints what it says',
    async (example) => {
      const source = code(example);
      expect(expectedOutput(source).length).toBeGreaterThan(0);
      expect(await runPython(source)).toEqual({ stdout: expectedOutput(source), stderr: '' });
    },
  );
});

test('the bundles guide’s openBundle example runs with the installed package and prints what it says', async () => {
  const source = guideBlock('js bundle').replace('treefarm-data-<version>.tar.gz', tarball);
  expect(source).toContain("from 'treefarm-data-client/offline'");
  expect(await runJavaScript(source)).toEqual({ stdout: expectedOutput(source), stderr: '' });
});

test('the downloads page’s openBundle example runs with the installed package and prints what it says', async () => {
  const source = pageExample('js-bundle');
  expect(source).toContain(`openBundle('${tarball}')`);
  expect(await runJavaScript(source)).toEqual({ stdout: expectedOutput(source), stderr: '' });
});

test('the downloads page imports nothing from a path only this repository has', () => {
  expect(page).toContain('treefarm-data-client/offline');
  expect(page).not.toContain('treefarm-data/client');
  expect(page).not.toContain('npm run ');
});

test('the downloads page names the database and the CSV files as a reader sees them', () => {
  expect(page).toContain('<code>treefarm.sqlite</code>');
  expect(page).toContain('<code>csv/&lt;kind&gt;.csv</code>');
  expect(page).not.toContain('&amp;lt;');
});
