// Every command-line entry point runs wherever the project lives: from a folder whose name has
// a space and non-ASCII letters, and through a symbolic link (comparing import.meta.url with
// argv[1] failed in all three and exited 0 having done nothing).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { MANIFEST_FILE } from '../../src/contract/paths.ts';
import { buildManifestSchema } from '../../src/schema/manifest.ts';
import { distDir, freePort } from '../support/runtimes.ts';
import { outputUntil } from '../support/child-output.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';
import { nodeScripts } from '../support/npm-scripts.ts';

const version = buildManifestSchema.parse(JSON.parse(readFileSync(join(distDir, MANIFEST_FILE), 'utf8'))).version;

/** The npm scripts that run a file of the project with node (`exec node`: npm's signals reach node itself). */
function scriptFiles(): string[] {
  return nodeScripts().map(({ file }) => file);
}

let scratch: string;
/** Where the project is reached from, by the case under test. */
const places: Record<string, string> = {};

beforeAll(() => {
  scratch = temporaryFolder('treefarm-entry-');
  // A copy whose real path has a space and non-ASCII letters (node_modules linked, not copied).
  const copy = join(scratch, 'tree farm ünïcode');
  mkdirSync(copy);
  for (const item of ['src', 'package.json', 'tsconfig.json'])
    cpSync(join(projectDir, item), join(copy, item), { recursive: true });
  symlinkSync(join(projectDir, 'node_modules'), join(copy, 'node_modules'));
  places['a path with a space and non-ASCII letters'] = copy;
  // The project itself, reached through a link whose own name has a space too.
  const link = join(scratch, 'linked project');
  symlinkSync(projectDir, link);
  places['a symbolic link'] = link;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe.each(['a path with a space and non-ASCII letters', 'a symbolic link'])('from %s', (place) => {
  test('npm run serve serves the API', async () => {
    const child = spawn(process.execPath, [join(places[place] ?? '', 'src/server/serve.ts')], {
      env: { ...process.env, PORT: '0', DIST_DIR: distDir, API_TOKENS: 'entry-point-token', WORKERS: '1' },
    });
    try {
      const output = await outputUntil(child, /API: +(http:\/\/\S+)\/api\/trees/);
      const origin = /API: +(http:\/\/\S+)\/api\/trees/.exec(output)?.[1];
      const response = await fetch(`${origin}/api/trees?search=Oak%20Tree`, {
        headers: { Authorization: 'Bearer entry-point-token' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-data-version')).toBe(version);
    } finally {
      await stop(child);
    }
  });

  test('npm run bundle:verify checks a bundle', () => {
    const bundle = join(distDir, 'downloads', `treefarm-data-${version}.zip`);
    const result = spawnSync(process.execPath, [join(places[place] ?? '', 'src/client/verify-cli.ts'), bundle], {
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`OK, data version ${version}`);
  });
});

test('npm run worker starts the Worker through a symbolic link', async () => {
  const child = spawn(process.execPath, [join(places['a symbolic link'] ?? '', 'src/cloudflare/worker-dev.ts')], {
    env: { ...process.env, PORT: String(await freePort()), API_TOKENS: 'entry-point-token' },
  });
  try {
    await outputUntil(child, /Worker \(workerd, local\): http:\/\/\S+\//);
  } finally {
    await stop(child);
  }
}, 90_000);

// Every entry point reads its settings in one module (src/server/settings.ts): a bad value stops
// it at once, before a build or a Worker starts, with one line naming the variable and the value.
test.each(['serve', 'start', 'worker'])('a bad PORT stops npm run %s with the message naming it', (script) => {
  const result = spawnSync('npm', ['run', '--silent', script], {
    cwd: projectDir,
    encoding: 'utf8',
    env: { ...process.env, PORT: 'abc', API_TOKENS: 'entry-point-token' },
    timeout: 60_000,
  });
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain('Cannot start: PORT must be a whole number from 0 to 65535, got "abc"\n');
  expect(result.stderr.match(/PORT must/g)).toHaveLength(1);
});

test('every script file either only runs (exports nothing) or runs only as the main module', () => {
  const files = scriptFiles();
  expect(files).toContain('src/build/cli.ts');
  for (const file of files) {
    const source = readFileSync(join(projectDir, file), 'utf8');
    const exportsSomething = /^export /m.test(source);
    if (exportsSomething) expect(source, `${file} exports and runs`).toContain('if (import.meta.main)');
    expect(source, file).not.toContain('process.argv[1]');
  }
});
