// `npm test` (test/setup/npm-test.ts) runs Biome, the type checks, then vitest with the options it
// is given; asked for vitest's help, it prints that at once, with nothing checked first (issue 66).
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

test.each([
  ['npm test -- --help', ['test', '--', '--help']],
  ['npm run test -- --help', ['run', 'test', '--', '--help']],
])("%s prints vitest's help at once, without Biome or the type checks", (_, args) => {
  const { status, stdout, stderr } = spawnSync('npm', args, { cwd: projectDir, encoding: 'utf8', timeout: 120_000 });
  expect(status, stderr).toBe(0);
  expect(stdout).toMatch(/^vitest\/\d+\.\d+\.\d+$/m);
  expect(stdout).toContain('$ vitest run [...filters]');
  // Biome says what it checked; the type checks are an npm script of their own, which npm names.
  expect(stdout + stderr).not.toMatch(/Checked \d+ files?|^> \S+ typecheck$/m);
});
