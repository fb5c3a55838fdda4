// The package README's examples, run as a user would paste them: its `js online` blocks in
// order as one script against the local server, its `js offline` blocks over a bundle, and
// each line of its `sh cli` block; every `// → text` comment is the output it must print.
import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { measureOnlineClient } from '../../packages/client/scripts/size.ts';
import { installedClient, type InstalledClient } from '../support/packed-client.ts';
import { distDir, startRuntime, type Runtime } from '../support/runtimes.ts';

const runFile = promisify(execFile);
const TOKEN = 'readme-test-token';
const readme = readFileSync(join(projectDir, 'packages', 'client', 'README.md'), 'utf8');

/** The code of every fenced block whose info string is `info` ("js online"), in order. */
function blocks(info: string): string[] {
  return [...readme.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)]
    .filter(([, blockInfo]) => blockInfo?.trim() === info)
    .map(([, , code]) => code ?? '');
}

/** What the code says it prints: the text after each `// → `, in order. */
const expectedOutput = (code: string) => [...code.matchAll(/\/\/ → (.*)$/gm)].map(([, text]) => text ?? '');

let client: InstalledClient;
let runtime: Runtime;
beforeAll(async () => {
  [client, runtime] = await Promise.all([installedClient(), startRuntime('node', { tokens: [TOKEN] })]);
  const version = loadContent(join(projectDir, 'content')).version;
  copyFileSync(
    join(distDir, 'downloads', bundleFileName(version, 'tar.gz')),
    join(client.project, 'treefarm-data.tar.gz'),
  );
});
afterAll(() => runtime?.close());

const environment = () => ({
  ...process.env,
  TREEFARM_URL: runtime.url,
  TREEFARM_TOKEN: TOKEN,
  npm_config_loglevel: 'error',
});

test.each(['js online', 'js offline'])('the README’s `%s` examples print what their comments say', async (info) => {
  const code = blocks(info).join('\n');
  expect(code).toContain('treefarm-data-client');
  const script = join(client.project, `readme-${info.replace(' ', '-')}.mjs`);
  writeFileSync(script, code);
  const { stdout, stderr } = await runFile(process.execPath, [script], { cwd: client.project, env: environment() });
  expect({ stdout: stdout.trimEnd().split('\n'), stderr }).toEqual({ stdout: expectedOutput(code), stderr: '' });
});

test('every line of the README’s `sh cli` block runs and finds something', async () => {
  const lines = (blocks('sh cli')[0] ?? '').split('\n').filter((line) => line.trim() !== '');
  expect(lines.length).toBeGreaterThan(2);
  for (const line of lines) {
    const { stdout } = await runFile('sh', ['-c', line], { cwd: client.project, env: environment() });
    expect({ line, printed: stdout.trim().length > 0 }).toEqual({ line, printed: true });
  }
});

test('the size the README states is what the online client measures, at most', async () => {
  const stated = /under ([\d.]+) KB minified \+ gzip/.exec(readme)?.[1];
  const { gzipped } = await measureOnlineClient(new URL(`file://${join(client.packageDir, 'dist', 'index.js')}`));
  expect(stated).toBeDefined();
  expect(gzipped).toBeLessThan(Number(stated) * 1024);
});
