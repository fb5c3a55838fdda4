// A fresh clone stays clean after `npm install` (README, "Set-up"): npm rewrites nothing it
// tracks, whichever Node runs it: Debian's Node 20 (/usr/bin/node, which npm still runs on),
// the documented floor (package.json's engines, the node-linux-* binary of that version from
// the registry) and the project's own Node. From the npm cache when it has the packages;
// --ignore-scripts, as no package's script writes outside node_modules.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const run = promisify(execFile);
const temporaryFolder = temporaryFolders();
const DEBIAN_NODE = '/usr/bin/node';

/** The npm a user runs: the first on PATH, as its CLI script (any Node runs it). */
function npmCli(): string {
  const found = (process.env.PATH ?? '').split(delimiter).find((folder) => existsSync(join(folder, 'npm')));
  if (!found) throw new Error('npm is not on PATH');
  return realpathSync(join(found, 'npm'));
}

/** package.json's engines floor as a version (">=22.18.0" -> 22.18.0). */
function nodeFloor(): string {
  const { engines } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const match = /^>=(\d+\.\d+)(\.\d+)?$/.exec(engines.node);
  if (!match) throw new Error(`package.json's engines.node is not ">=version": ${engines.node}`);
  return `${match[1]}${match[2] ?? '.0'}`;
}

/** The Node binary of `version` from the npm registry (its node-<platform>-<arch> package). */
async function nodeFromRegistry(version: string): Promise<string> {
  const folder = temporaryFolder('treefarm-node-');
  const spec = `node-${process.platform}-${process.arch}@${version}`;
  const { stdout } = await run(process.execPath, [npmCli(), 'pack', spec, '--prefer-offline', '--silent'], {
    cwd: folder,
  });
  await run('tar', ['-xzf', stdout.trim(), 'package/bin/node'], { cwd: folder });
  return join(folder, 'package/bin/node');
}

describe('npm install in a fresh clone leaves git status clean', () => {
  const clone = temporaryFolder('treefarm-clone-');
  const install = (node: string) =>
    run(node, [npmCli(), 'install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: clone,
      maxBuffer: 16 * 1024 * 1024,
    });
  const status = async () => (await run('git', ['status', '--porcelain'], { cwd: clone })).stdout;

  beforeAll(async () => {
    await run('git', ['clone', '--quiet', projectDir, clone]);
  });

  // The first install is the fresh one (every package from the cache); the others run over it.
  test.skipIf(!existsSync(DEBIAN_NODE))("with Debian's Node 20", { timeout: 900_000 }, async () => {
    await install(DEBIAN_NODE);
    expect(await status()).toBe('');
  });

  test(`with the documented floor, Node ${nodeFloor()}`, { timeout: 300_000 }, async () => {
    await install(await nodeFromRegistry(nodeFloor()));
    expect(await status()).toBe('');
  });

  test("with the project's own Node", { timeout: 300_000 }, async () => {
    await install(process.execPath);
    expect(await status()).toBe('');
  });
});
