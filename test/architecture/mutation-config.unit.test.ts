// The mutation runs (vitest.mutation.config.ts, TESTING.md) name their test files by path: a
// renamed or removed test would silently leave its code unchecked by them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { mutationTests } from '../../vitest.mutation.config.ts';

test('every test file a mutation run names exists', () => {
  const missing = Object.values(mutationTests)
    .flat()
    .filter((file) => !existsSync(join(projectDir, file)));
  expect(missing).toEqual([]);
});
