// The one way the tests make a temporary folder: one at a time (its test removes it), or a test
// file's set, removed when the file's tests are done (test/architecture/test-helpers.unit.test.ts
// keeps every other file from calling mkdtemp itself).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A new empty folder named `prefix` and a random suffix, in the system's temporary folder or `inside`. */
export function temporaryFolder(prefix: string, inside = tmpdir()): string {
  return mkdtempSync(join(inside, prefix));
}

/** At a test file's top level: makes folders in the system's temporary folder, removed after the file's tests. */
export function temporaryFolders(): (prefix: string) => string {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  return (prefix) => {
    const folder = temporaryFolder(prefix);
    folders.push(folder);
    return folder;
  };
}
