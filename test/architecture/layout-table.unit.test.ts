// docs/architecture.md's Layout table tells the truth: every top-level entry of the repository and every
// entry of src/ and test/ is listed there, and nothing is listed that is not in the tree.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

const page = readFileSync(join(projectDir, 'docs', 'architecture.md'), 'utf8');
const layout = page.slice(page.indexOf('## Layout'), page.indexOf('\n## ', page.indexOf('## Layout') + 1));
/** The table's first column: each row's paths, in backticks. */
const listed = layout
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .flatMap((line) => Array.from((line.split(' | ')[0] ?? '').matchAll(/`([^`]+)`/g), (match) => match[1] ?? ''));
/** Everything the rows say, the second column too (sub-folders are named there). */
const mentioned = new Set(Array.from(layout.matchAll(/`([^`]+)`/g), (match) => (match[1] ?? '').replace(/\/$/, '')));

/** The entries of a folder that git has (or would add), one level deep. */
function entriesOf(folder: string): string[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', folder || '.'], {
    cwd: projectDir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  const prefix = folder ? `${folder}/` : '';
  return [...new Set(files.map((file) => file.slice(prefix.length).split('/')[0] ?? ''))];
}

test('the Layout table lists paths', () => {
  expect(listed).toContain('src/edge/');
  expect(listed.length).toBeGreaterThan(15);
});

test('every path the Layout table lists is in the tree', () => {
  expect(listed.filter((path) => !existsSync(join(projectDir, path)))).toEqual([]);
});

test('every top-level entry and every entry of src/ is listed', () => {
  const asListed = (path: string) => (statSync(join(projectDir, path)).isDirectory() ? `${path}/` : path);
  const top = entriesOf('').map(asListed);
  const inSrc = entriesOf('src').map((entry) => asListed(`src/${entry}`));
  const unlisted = [...top, ...inSrc].filter(
    (path) => !listed.includes(path) && !listed.some((entry) => entry.startsWith(path)),
  );
  expect(unlisted).toEqual([]);
});

test('every folder of test/ is named in the Layout table', () => {
  const folders = entriesOf('test').filter((entry) => statSync(join(projectDir, 'test', entry)).isDirectory());
  expect(folders.filter((folder) => !mentioned.has(folder))).toEqual([]);
});
