// The columns of the bundles' database tables and CSV files come from the zod schemas: a
// field the columns cannot hold stops the build with a message naming the kind and the field.
import { z } from 'zod';
import { expect, test } from 'vitest';
import { columnsOf } from '../../src/build/columns.ts';
import { measured } from '../../src/schema/fields.ts';
import { kinds, type Kind } from '../../src/schema/kinds.ts';

/** The tree kind with another API schema. */
const treesWith = (shape: z.core.$ZodLooseShape) => ({ ...kinds[0], schema: z.strictObject(shape) }) as unknown as Kind;

test('an integer, a text and a [min, max] pair become columns in field order, with their unit and meaning', () => {
  const kind = treesWith({
    level: z.int().describe('The level.'),
    name: z.string().describe('The name.'),
    money: measured(z.tuple([z.int(), z.int()]), 'in-game dollars', '[min, max] dollars.'),
  });
  expect(columnsOf(kind).map(({ name, type, unit }) => [name, type, unit])).toEqual([
    ['level', 'integer', null],
    ['name', 'text', null],
    ['money_min', 'integer', 'in-game dollars'],
    ['money_max', 'integer', 'in-game dollars'],
    ['slug', 'text', null],
  ]);
  expect(columnsOf(kind)[2]?.description).toBe('The min of money: [min, max] dollars.');
});

test.each([
  ['a true or false', z.boolean()],
  ['a list of any length', z.array(z.int())],
  ['a triple', z.tuple([z.int(), z.int(), z.int()])],
])('a field that is %s stops the build, naming the kind and the field', (_what, field) => {
  expect(() => columnsOf(treesWith({ level: z.int(), odd: field }))).toThrow(
    /^trees\.odd: no table column for its JSON Schema .*columns are integers, text or \[min, max\] pairs/,
  );
});
