// How the wiki words changes: values with their units, rows of the change tables, each
// record's History. Hand-written changes in, the expected words out.
import { expect, test } from 'vitest';
import type { Changes } from '../../src/build/changes.ts';
import { formatValue } from '../../src/contract/figures.ts';
import { type ChangeHistory, changeTables, recordHistories } from '../../src/wiki/changes.ts';

test('values are written exactly, with their unit; ranges as ranges; lists joined; absent as a dash', () => {
  expect(formatValue('trees', 'logValue', 93741)).toBe('$93,741');
  expect(formatValue('trees', 'growthTime', 3660)).toBe('3,660 s');
  expect(formatValue('cutters', 'efficiency', [10, 20])).toBe('10%–20%');
  expect(formatValue('cutters', 'aliases', ['Bread Knife', 'Knife'])).toBe('Bread Knife, Knife');
  expect(formatValue('cutters', 'aliases', null)).toBe('—');
  expect(formatValue('trees', 'name', 'Oak Tree')).toBe('Oak Tree');
});

const changes: Changes = {
  added: [{ kind: 'trees', name: 'Baobab', level: 107, slug: 'baobab' }],
  removed: [{ kind: 'plots', level: 9, slug: 'level-9' }],
  changed: [
    {
      kind: 'cutters',
      name: 'Blade',
      level: 2,
      slug: 'knife',
      fields: { name: { from: 'Knife', to: 'Blade' }, cost: { from: 1120, to: 1200 } },
    },
  ],
};

test('change tables: one row per changed field with old and new value; links only to records that have a page', () => {
  const tables = changeTables(changes, new Set(['trees/baobab', 'cutters/knife']));
  expect(tables.changed).toEqual([
    { kind: 'Cutters', title: 'Blade', href: '/cutters/knife/', level: 2, field: 'Name', from: 'Knife', to: 'Blade' },
    { kind: 'Cutters', title: 'Blade', href: '/cutters/knife/', level: 2, field: 'Cost', from: '$1,120', to: '$1,200' },
  ]);
  expect(tables.added).toEqual([{ kind: 'Trees', title: 'Baobab', href: '/trees/baobab/', level: 107 }]);
  expect(tables.removed).toEqual([{ kind: 'Plots', title: 'Level 9 plot', level: 9 }]);
  expect(tables.summary).toBe('1 added, 1 removed, 1 changed');
});

test("a record's History: its unreleased change first, then the releases that changed it, newest first", () => {
  const release = (id: string, releaseChanges: Changes) => ({ id, date: id.slice(0, 10), changes: releaseChanges });
  const history: ChangeHistory = {
    releases: [
      release('2026-12-01', {
        added: [{ kind: 'cutters', name: 'Knife', level: 2, slug: 'knife' }],
        removed: [],
        changed: [],
      }),
      release('2026-12-01-2', { added: [], removed: [], changed: [] }),
      release('2026-12-02', changes),
    ],
    unreleased: {
      added: [],
      removed: [],
      changed: [
        { kind: 'cutters', name: 'Blade', level: 2, slug: 'knife', fields: { cooldown: { from: 69, to: 70 } } },
      ],
    },
  };
  expect(recordHistories(history).get('cutters/knife')).toEqual([
    { release: 'Not yet released', href: '/changes/#unreleased', what: 'Cooldown: 69 s → 70 s' },
    {
      release: '2026-12-02',
      href: '/changes/2026-12-02/',
      date: '2026-12-02',
      what: 'Name: Knife → Blade; Cost: $1,120 → $1,200',
    },
    { release: '2026-12-01', href: '/changes/2026-12-01/', date: '2026-12-01', what: 'Added' },
  ]);
  expect(recordHistories(history).get('trees/oak-tree')).toBeUndefined();
});
