// Code a reader can hold: no file of src/ over 400 lines, no function in src/ over 60 lines, no
// line over 120 characters in the code of the repository (Biome formats code to 120; strings,
// comments and markup are ours).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 60;
const MAX_LINE_LENGTH = 120;

function filesOf(...patterns: string[]): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...patterns], {
    cwd: projectDir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('worker-configuration.d.ts'));
}

/** Every function of a file longer than the limit, as "file:line name (N lines)". */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(projectDir, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = 'name' in node && node.name ? node.name.getText(source) : '(anonymous)';
      if (last - first + 1 > MAX_FUNCTION_LINES) found.push(`${file}:${first + 1} ${name} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// Code only: a stylesheet (src/wiki/wiki.css) is looked up by its selectors, not read through, and
// its rules' order is the cascade's, which one file keeps in sight.
test(`no file of src/ is over ${MAX_FILE_LINES} lines (code: .ts, .mjs, .astro)`, () => {
  const files = filesOf('src').filter((file) => /\.(ts|mjs|astro)$/.test(file));
  expect(files.length).toBeGreaterThan(40);
  const long = files.flatMap((file) => {
    const lines = readFileSync(join(projectDir, file), 'utf8').trimEnd().split('\n').length;
    return lines > MAX_FILE_LINES ? [`${file} (${lines} lines)`] : [];
  });
  expect(long).toEqual([]);
});

test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
  const files = filesOf('src/*.ts', 'src/**/*.ts');
  expect(files.length).toBeGreaterThan(40);
  expect(files.flatMap(longFunctions)).toEqual([]);
});

test(`no line of code is over ${MAX_LINE_LENGTH} characters`, () => {
  const files = filesOf('*.ts', '*.mjs', '*.astro', '*.css', 'src', 'test', 'bench').filter((file) =>
    /\.(ts|mjs|astro|css)$/.test(file),
  );
  const long = files.flatMap((file) =>
    readFileSync(join(projectDir, file), 'utf8')
      .split('\n')
      .flatMap((line, index) => ([...line].length > MAX_LINE_LENGTH ? [`${file}:${index + 1}`] : [])),
  );
  expect(long).toEqual([]);
});

// Data reaches each part through its arguments, its imports or the build's integration: state
// on globalThis, or a diagnostics channel that only a test listens to, hides who talks to whom.
/** State kept on globalThis (`globalThis as`, `globalThis[...]`, an assignment), or a diagnostics channel. */
const HIDDEN_GLOBAL = /\bglobalThis(\s+as\b|\[|\.\w+\s*=[^=])|node:diagnostics_channel|Symbol\.for\(/;

test('no hidden globals: no code of src/ keeps state on globalThis or publishes on a diagnostics channel', () => {
  const files = filesOf('src').filter((file) => /\.(ts|mjs|astro)$/.test(file));
  const hidden = files.filter((file) => HIDDEN_GLOBAL.test(readFileSync(join(projectDir, file), 'utf8')));
  expect(hidden).toEqual([]);
});

// A library's private parts change without notice (node:http renamed its headers' slot once): src/
// reaches node:http and every library through their public API only.
/** A private slot found by its symbol (`getOwnPropertySymbols`), or node:http's own slot names. */
const PRIVATE_SLOT = /getOwnPropertySymbols\(|\bkOutHeaders\b|\bkNeedDrain\b|\b_storeHeader\b|\b_header\b/;

test("no private internals: no code of src/ looks up a library's private slot or symbol", () => {
  const files = filesOf('src').filter((file) => /\.(ts|mjs|astro)$/.test(file));
  const reaching = files.filter((file) => PRIVATE_SLOT.test(readFileSync(join(projectDir, file), 'utf8')));
  expect(reaching).toEqual([]);
});
