// A helper of the tests is found in one place: every file of test/ that is not a test is a
// shared helper in test/support, vitest's setup (or `npm test`'s steps) in test/setup, or a
// fixture in test/fixtures.
// The folders by area hold only tests, so a helper one area starts sharing is already where the
// others look for it.
import { execFileSync, spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

const HELPER_FOLDERS = ['test/support/', 'test/setup/', 'test/fixtures/'];

test('every code file of test/ outside support, setup and fixtures is a test', () => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'test'], {
    cwd: projectDir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => /\.(ts|mjs)$/.test(file));
  expect(files.length).toBeGreaterThan(100);
  const misplaced = files.filter(
    (file) => !file.endsWith('.test.ts') && !HELPER_FOLDERS.some((folder) => file.startsWith(folder)),
  );
  expect(misplaced).toEqual([]);
});

test('every temporary folder of the tests is made by test/support/temporary-folders.ts', () => {
  // Written in two parts, so this file does not match itself.
  const call = ['mkd', 'temp(Sync)?\\('].join('');
  const found = spawnSync('git', ['grep', '-l', '-E', call, '--', 'test'], {
    cwd: projectDir,
    encoding: 'utf8',
  });
  expect(found.stdout.split('\n').filter(Boolean)).toEqual(['test/support/temporary-folders.ts']);
});
