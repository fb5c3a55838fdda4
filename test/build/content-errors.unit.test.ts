// Broken content fails the build with one problem per break, naming the file, the field and
// what was expected. Each test breaks one thing in a small valid content tree.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ContentError, loadContent } from '../../src/build/content.ts';
import { minimalProject, type TempProject } from '../fixtures/minimal-content.ts';

let project: TempProject;
beforeEach(() => {
  project = minimalProject();
});
afterEach(() => project.remove());

/** The problem lines of the build's error message. */
function problems(): string[] {
  try {
    loadContent(project.contentDir);
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    return error.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  return [];
}

/** The build reports exactly one problem: in `file` (below content/), at `field`, saying `expected`. */
function expectProblem(file: string, field: string | undefined, expected: string): void {
  const lines = problems();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^content/${escapeRegExp(file)}: ${field ? `${escapeRegExp(field)}: ` : ''}`));
  expect(lines[0]).toContain(expected);
}

const readRaw = (file: string) => readFileSync(join(project.contentDir, file), 'utf8');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wholeNumber = 'expected a whole number of at least 0, below 2^53 (digits only, no quotes or decimals)';

test('the minimal content is valid', () => {
  expect(problems()).toEqual([]);
});

test('a missing field is named as missing', () => {
  project.patch('cutters/fist.yaml', { cost: undefined });
  expectProblem('cutters/fist.yaml', 'cost', `missing: ${wholeNumber}`);
});

test('a value of the wrong type names what was expected and what was found', () => {
  project.patch('cutters/fist.yaml', { efficiency: 20 });
  expectProblem('cutters/fist.yaml', 'efficiency', 'expected a pair [min, max] with min < max, got 20');
});

test('a number written as text is refused', () => {
  project.patch('cutters/fist.yaml', { cost: '249' });
  expectProblem('cutters/fist.yaml', 'cost', `${wholeNumber}, got the text "249"`);
});

test('a number with decimals is refused', () => {
  project.patch('cutters/fist.yaml', { cost: 249.5 });
  expectProblem('cutters/fist.yaml', 'cost', `${wholeNumber}, got 249.5`);
});

test('a negative number is refused', () => {
  project.patch('cutters/fist.yaml', { cost: -1 });
  expectProblem('cutters/fist.yaml', 'cost', `${wholeNumber}, got -1`);
});

test('null is refused where a number is expected', () => {
  project.patch('cutters/fist.yaml', { cost: null });
  expectProblem('cutters/fist.yaml', 'cost', `${wholeNumber}, got null`);
});

test('level 0 is refused: levels start at 1', () => {
  project.patch('cutters/fist.yaml', { level: 0 });
  expectProblem(
    'cutters/fist.yaml',
    'level',
    'expected a whole number of at least 1, below 2^53 (digits only, no quotes or decimals), got 0',
  );
});

test('a number past 2^53 is refused as not exact', () => {
  // Written as text: a JavaScript number literal could not even hold it.
  project.writeRaw(
    'trees/birch-tree.yaml',
    readRaw('trees/birch-tree.yaml').replace('upgradeCost: 11500', 'upgradeCost: 9007199254740993'),
  );
  expectProblem(
    'trees/birch-tree.yaml',
    'upgradeCost',
    `${wholeNumber}, got 9007199254740992 (past 2^53, so not exact)`,
  );
});

test('a cutter efficiency [20, 10] is refused: min above max', () => {
  project.patch('cutters/fist.yaml', { efficiency: [20, 10] });
  expectProblem('cutters/fist.yaml', 'efficiency', 'expected a pair [min, max] with min < max, got [20, 10]');
});

test('a cutter efficiency [20, 20] is refused: min must be below max', () => {
  project.patch('cutters/fist.yaml', { efficiency: [20, 20] });
  expectProblem('cutters/fist.yaml', 'efficiency', 'expected a pair [min, max] with min < max, got [20, 20]');
});

test('a gift range [5, 1] is refused: min above max', () => {
  project.patch('gifts/small.yaml', { logs: [5, 1] });
  expectProblem('gifts/small.yaml', 'logs', 'expected a pair [min, max] with min <= max, got [5, 1]');
});

test('an unknown field is named, with the fields of the kind', () => {
  project.patch('cutters/fist.yaml', { colour: 'red' });
  expectProblem(
    'cutters/fist.yaml',
    undefined,
    'unknown field "colour"; the fields are level, name, cooldown, cost, efficiency',
  );
});

test('an empty name is refused', () => {
  project.patch('cutters/fist.yaml', { name: '' });
  expectProblem('cutters/fist.yaml', 'name', 'expected non-empty name with no spaces around it, got the text ""');
});

test('a name with spaces around it is refused', () => {
  project.patch('cutters/fist.yaml', { name: ' Fist ' });
  expectProblem('cutters/fist.yaml', 'name', 'expected non-empty name with no spaces around it, got the text " Fist "');
});

test('a name with an empty search key is refused: no search could find it', () => {
  project.patch('cutters/fist.yaml', { name: '!!!' });
  expectProblem('cutters/fist.yaml', 'name', '"!!!" has an empty search key (no letters or digits)');
});

test('two records of one kind at one level are refused, naming both files', () => {
  project.patch('trees/birch-tree.yaml', { level: 1 });
  expectProblem('trees/oak-tree.yaml', 'level', 'level 1 is also the level of content/trees/birch-tree.yaml');
});

test('two gifts sharing level and order are refused, naming both files', () => {
  project.patch('gifts/medium.yaml', { order: 1 });
  expectProblem('gifts/small.yaml', 'order', 'level 1 with order 1 is also declared by content/gifts/medium.yaml');
});

test('a name sharing a search key with an alias of another record is refused, naming both', () => {
  project.writeRaw(
    'cutters/bread-knife.yaml',
    'level: 3\nname: bread-knife\ncooldown: 79\ncost: 5042\nefficiency: [30, 40]\n',
  );
  expectProblem(
    'cutters/bread-knife.yaml',
    'name',
    '"bread-knife" has the search key "breadknife", as "Bread Knife" of content/cutters/knife.yaml does',
  );
});

test('two names sharing a search key are refused, naming both', () => {
  project.patch('trees/birch-tree.yaml', { name: 'oak_tree' });
  expectProblem(
    'trees/birch-tree.yaml',
    'name',
    '"oak_tree" has the search key "oaktree", as "Oak Tree" of content/trees/oak-tree.yaml does',
  );
});

test('malformed YAML is refused with its line and column', () => {
  project.writeRaw('cutters/fist.yaml', 'level: 1\nname: [Fist\n');
  expectProblem(
    'cutters/fist.yaml',
    undefined,
    'malformed YAML: Flow sequence in block collection must be sufficiently indented ' +
      'and end with a ] at line 3, column 1',
  );
});

test('a field given twice in YAML is refused, naming the field and its line', () => {
  project.writeRaw(
    'cutters/fist.yaml',
    'level: 1\nname: Fist\ncooldown: 60\ncost: 249\ncost: 250\nefficiency: [10, 20]\n',
  );
  expectProblem('cutters/fist.yaml', 'cost', 'malformed YAML: Map keys must be unique at line 5, column 1');
});

test('malformed JSON is refused with its position', () => {
  project.writeRaw('cutters/axe.json', '{"level": 3, "name": "Axe",}');
  expectProblem(
    'cutters/axe.json',
    undefined,
    'malformed JSON: Expected double-quoted property name in JSON at position 27',
  );
});

test('an empty file is refused: a record is a mapping of fields', () => {
  project.writeRaw('cutters/fist.yaml', '');
  expectProblem('cutters/fist.yaml', undefined, 'expected a mapping of fields, got null');
});

const notAContentFile = 'not a content file: names are lower-case words joined by "-", ending in .yaml, .yml or .json';

test.each(['trees/Elm Tree.yaml', 'trees/elm_tree.yaml', 'trees/elm-tree.txt'])(
  'a file not named as lower-case words joined by "-" with a content extension is refused: %s',
  (file) => {
    project.writeRaw(file, 'name: Elm Tree\n');
    expectProblem(file, undefined, notAContentFile);
  },
);

test('a missing kind folder is refused', () => {
  rmSync(join(project.contentDir, 'plots'), { recursive: true });
  expectProblem('plots', undefined, 'the folder of plots is missing');
});

test('a folder that is not a kind is refused, naming the kinds', () => {
  project.writeRaw('bushes/rose.yaml', 'name: Rose\n');
  expectProblem('bushes', undefined, 'not a kind; the kinds are trees, cutters, gifts, plots, storages, vehicles');
});
