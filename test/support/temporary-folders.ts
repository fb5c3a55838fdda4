// Temporary folders a test file makes, removed when the file's tests are done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** At a test file's top level: makes folders in the system's temporary folder, removed after the file's tests. */
export function temporaryFolders(): (prefix: string) => string {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  return (prefix) => {
    const folder = mkdtempSync(join(tmpdir(), prefix));
    folders.push(folder);
    return folder;
  };
}
