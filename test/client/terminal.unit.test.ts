// What the CLI prints reaches a terminal, and part of it comes from a bundle anyone may have
// made: escape sequences and control characters never reach the terminal (src/client/terminal.ts).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundleEntries, packZip } from '../../src/build/bundles.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { BUNDLE_BODIES } from '../../src/contract/bundle-layout.ts';
import { run } from '../../src/client/cli/main.ts';
import { formatJson, formatTable } from '../../src/client/cli/table.ts';
import { printable } from '../../src/client/terminal.ts';
import { forgedEntries } from '../support/hostile-bundles.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

/** Clear the screen, set the window title, a C1 CSI (U+009B) and DEL, a carriage return. */
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u009b31m\u007f\r';
/** Any control character but tab and line feed, or an ESC. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the test.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('printable', () => {
  test.each([
    ['a control sequence', 'a\u001b[2Jb', 'ab'],
    ['a colour', '\u001b[1;31mred\u001b[0m', 'red'],
    ['a title, ended by BEL', 'a\u001b]0;pwned\u0007b', 'ab'],
    ['a title, ended by ESC \\', 'a\u001b]0;pwned\u001b\\b', 'ab'],
    ['a title never ended', 'a\u001b]0;pwned', 'a'],
    ['a reset (ESC c)', 'a\u001bcb', 'ab'],
    ['a lone ESC', 'a\u001b', 'a'],
    ['C1 controls, DEL, NUL, a carriage return', 'a\u009b\u0085\u007f\u0000\rb', 'ab'],
    ['tabs and line breaks', 'a\tb\nc', 'a\tb\nc'],
    ['text beyond ASCII', 'Æble – 林 ☃', 'Æble – 林 ☃'],
  ])('removes %s', (_, text, shown) => {
    expect(printable(text)).toBe(shown);
  });
});

describe('the table and the JSON of records from anywhere', () => {
  const records = [
    { name: `Oak${HOSTILE} Tree`, level: 1, [`ali\u001b[2Jases`]: [`x\u001b]0;t\u0007`] },
    { name: 'line\nbreak', level: 2, aliases: [] },
  ];

  test('a table holds no control character, in cells or in field names; a line break in a cell is a space', () => {
    const table = formatTable(records);
    expect(table).not.toMatch(CONTROL);
    expect(table.split('\n')[0]).toMatch(/^name\s+level\s+aliases$/);
    expect(table).toContain('Oak Tree');
    expect(table).toContain('line break');
    expect(table.split('\n')).toHaveLength(4);
  });

  test('one record as a list of its fields holds none either', () => {
    const list = formatTable(records.slice(0, 1));
    expect(list).not.toMatch(CONTROL);
    expect(list).toMatch(/^name +Oak Tree$/m);
  });

  test('JSON writes them as \\u escapes: the same data to a parser, nothing for the terminal', () => {
    const json = formatJson(records);
    expect(json).not.toMatch(CONTROL);
    expect(JSON.parse(json)).toEqual(records);
  });
});

describe('treefarm over a bundle that carries escape sequences', () => {
  let content: Content;
  let scratch: string;
  beforeAll(() => {
    content = loadContent(join(projectDir, 'content'));
    scratch = temporaryFolder('treefarm-terminal-');
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function treefarm(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run({ argv, env: {}, out: (text) => out.push(text), err: (text) => err.push(text) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  test('a record whose name carries them prints without them, as a table and as JSON', async () => {
    const path = join(scratch, 'forged.zip');
    const name = JSON.stringify(`Oak Tree${HOSTILE}`).slice(1, -1);
    writeFileSync(
      path,
      packZip(forgedEntries(content, { [BUNDLE_BODIES]: (text) => text.replaceAll('"Oak Tree"', `"${name}"`) })),
    );
    for (const json of [false, true]) {
      const { code, out } = await treefarm(['trees', '69', '--bundle', path, ...(json ? ['--json'] : [])]);
      expect({ code, control: CONTROL.exec(out)?.[0] }).toEqual({ code: 0, control: undefined });
      expect(out).toContain('Oak Tree');
    }
  });

  test('an error naming an entry of the bundle prints without them', async () => {
    const path = join(scratch, 'unlisted.zip');
    const entry = `\u001b[2J\u001b]0;pwned\u0007evil\u009b31m.json`;
    writeFileSync(path, packZip([...bundleEntries(content), { name: entry, bytes: new Uint8Array(1) }]));
    const { code, err } = await treefarm(['trees', '--bundle', path]);
    expect(code).toBe(2);
    expect(err).toBe('treefarm: The bundle holds evil.json, which its manifest does not list.');
  });
});
