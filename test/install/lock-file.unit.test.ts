// The lock file pins every install to exact tarballs: each package it names has the registry
// URL it was fetched from (`resolved`) and its integrity, so `npm ci` (the image's `npm ci
// --omit=dev` too) asks the registry for no name and no dist-tag. npm holds a dependency named
// by a tag (lighthouse's trace engine names `legacy-javascript@latest`) locked only when its
// entry has a registry URL; without one it looks the tag up on every install.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  name?: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const read = (file: string) => readFileSync(join(projectDir, file), 'utf8');
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
const installed = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.link);
/** The registry's tarball URL for a package at a version (what npm writes as `resolved`). */
const registryTarball = (name: string, version: string) =>
  `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${version}.tgz`;
/** The package an entry of `packages` holds: its `name` (an alias's target), else its folder's. */
const packageName = (path: string, entry: LockEntry) =>
  entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 13);

/** Where npm finds `name` for the package at `from`: the nearest node_modules holding it, walking up. */
function resolvedFrom(from: string, name: string): string {
  let folder = from;
  while (!(`${folder}/node_modules/${name}` in lock.packages) && folder.includes('/node_modules/'))
    folder = folder.slice(0, folder.lastIndexOf('/node_modules/'));
  const nested = `${folder}/node_modules/${name}`;
  return nested in lock.packages ? nested : `node_modules/${name}`;
}

test("every package in the lock file has its registry tarball's URL and an sha512 integrity", () => {
  expect(installed.length).toBeGreaterThan(900);
  const unpinned = installed.filter(
    ([path, entry]) =>
      entry.resolved !== registryTarball(packageName(path, entry), entry.version ?? '') ||
      !entry.integrity?.startsWith('sha512-'),
  );
  expect(unpinned.map(([path]) => path)).toEqual([]);
});

test('a dependency named by a dist-tag is locked to a registry URL, so no install looks the tag up', () => {
  const semverRange = /^[\d^~<>=*xX|\s.-]|^$/;
  const byTag = installed.flatMap(([path, entry]) =>
    Object.entries({ ...entry.dependencies, ...entry.optionalDependencies })
      .filter(([, spec]) => !semverRange.test(spec) && !spec.includes(':'))
      .map(([name, spec]) => ({ from: path, name, spec })),
  );
  // Today's one such parent: the rule is empty-handed if it names none.
  expect(byTag.map(({ name, spec }) => `${name}@${spec}`)).toContain('legacy-javascript@latest');
  for (const { from, name } of byTag) {
    const target = lock.packages[resolvedFrom(from, name)];
    expect({ name, resolved: target?.resolved }).toEqual({ name, resolved: expect.stringMatching(/^https:\/\//) });
  }
});

test("the project's .npmrc keeps npm writing the URLs, whatever a user's own npmrc says", () => {
  // A user's omit-lockfile-registry-resolved=true would drop them from every entry npm rewrites.
  expect(read('.npmrc')).toMatch(/^omit-lockfile-registry-resolved=false$/m);
});

test("the lock file's root is package.json's, so npm install has nothing to rewrite there", () => {
  const manifest = JSON.parse(read('package.json')) as LockEntry;
  const root = lock.packages[''];
  expect({
    engines: root?.engines,
    dependencies: root?.dependencies,
    devDependencies: root?.devDependencies,
  }).toEqual({
    engines: manifest.engines,
    dependencies: manifest.dependencies,
    devDependencies: manifest.devDependencies,
  });
});
