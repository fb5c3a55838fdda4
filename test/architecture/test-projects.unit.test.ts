// The unit project (vitest.config.ts) runs on a fresh clone with nothing built or started: none
// of its files reaches, directly or through a helper of test/, what needs dist/, a server, a
// Worker or a browser. A file that does belongs to the integration project.
import { existsSync, globSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { unitTests } from '../../vitest.config.ts';

/** What only the integration project may reach: each needs a build, a running server or a browser. */
const NEEDS_MORE = new Map([
  ['test/support/runtimes.ts', 'starts the Node server or the Worker on dist/'],
  ['test/support/dist-routes.ts', 'reads dist/'],
  ['test/support/built-pages.ts', 'reads dist/'],
  ['test/support/packed-client.ts', 'packs and installs the client'],
  ['test/support/builds.ts', 'copies and rebuilds dist/'],
  ['test/fixtures/killed-build.ts', 'kills a child process midway'],
  ['playwright-core', 'drives a browser'],
]);

/** The test files and helpers of test/ a file imports, and the packages, followed through helpers. */
function reach(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  if (!file.startsWith('test/')) return seen;
  const source = readFileSync(join(projectDir, file), 'utf8');
  for (const [, specifier = ''] of source.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)) {
    if (!specifier.startsWith('.')) {
      seen.add(specifier);
      continue;
    }
    const target = relative(projectDir, resolve(projectDir, dirname(file), specifier));
    if (existsSync(join(projectDir, target))) reach(target, seen);
  }
  return seen;
}

const files = unitTests.flatMap((pattern) => globSync(pattern, { cwd: projectDir }));

test('the unit project has its files (each pattern matches at least one)', () => {
  for (const pattern of unitTests) expect(globSync(pattern, { cwd: projectDir }), pattern).not.toEqual([]);
  expect(files.length).toBeGreaterThan(30);
});

test('no unit test reaches what needs a build, a server or a browser', () => {
  const reached = files.flatMap((file) =>
    [...reach(file)].filter((module) => NEEDS_MORE.has(module)).map((module) => `${file} -> ${module}`),
  );
  expect(reached).toEqual([]);
});
