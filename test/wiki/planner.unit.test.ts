// The planner page's model: what it ranks and says for a player's inputs, how it reads what
// they type, and the data file its script loads. The page in a browser: browser.test.ts.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { plan, treeEconomics } from '../../src/contract/economics.ts';
import type { Tree } from '../../src/schema/records.ts';
import {
  inputsNote,
  openingPlan,
  PLANNER_ROWS,
  plannerData,
  plannerFile,
  plannerView,
  plotLabel,
  readLevel,
  readMoney,
  type PlannerTree,
} from '../../src/wiki/planner.ts';

const content = loadContent(join(projectDir, 'content'));
const trees: PlannerTree[] = content.entries.trees.map((entry) => {
  const { name, level, growthTime, logCount, logValue, saplingCost, upgradeCost } = entry.data as Tree;
  return { name, href: `/trees/${entry.slug}/`, level, growthTime, logCount, logValue, saplingCost, upgradeCost };
});
const allMoney = Number.POSITIVE_INFINITY;

describe('the plan the planner opens on', () => {
  const plots = content.entries.plots.map(({ data }) => {
    const { level, growthSpeed } = data as { level: number; growthSpeed: number };
    return { level, growthSpeed };
  });
  const opening = openingPlan({ trees, plots });

  test('a farm at its start: the level 1 tree on the level 1 plot (100%), no money saved yet', () => {
    expect(opening).toEqual({ level: 1, plot: { level: 1, growthSpeed: 100 }, money: 0 });
  });

  test('it ranks the one tree the player has and names the first upgrade, not every tree', () => {
    const view = plannerView(trees, { level: opening.level, growthSpeed: 100, money: opening.money });
    expect(view.rows.map((row) => row.name)).toEqual(['African Juniper']);
    expect(view.summary).toMatch(/^1 tree within reach; the best is African Juniper \(level 1\)/);
    expect(view.next).toMatch(/^Next upgrade: American Arborvitae \(level 2\) for \$11\.5K; your money does not/);
  });
});

describe('the ranking', () => {
  test('with no money limit, every tree, best profit per hour first, as the formulas rank them', () => {
    const view = plannerView(trees, { level: 1, growthSpeed: 100, money: allMoney });
    const formulas = plan(treeEconomics(trees), { level: 1, growthSpeed: 100, money: allMoney }).ranking;
    expect(view.reachable).toBe(trees.length);
    expect(view.rows.map((row) => row.name)).toEqual(formulas.map((row) => row.name));
    expect(view.rows.map((row) => row.rank)).toEqual(formulas.map((_row, index) => index + 1));
  });

  test('the money decides which trees are within reach', () => {
    const poor = plannerView(trees, { level: 1, growthSpeed: 100, money: 0 });
    const richer = plannerView(trees, { level: 1, growthSpeed: 100, money: 30_000 });
    expect(poor.rows.map((row) => row.level)).toEqual([1]);
    expect(richer.rows.map((row) => row.level)).toEqual([3, 2, 1]);
  });

  test('the plot changes every profit per hour and payback, by its speed', () => {
    const normal = plannerView(trees, { level: 1, growthSpeed: 100, money: 30_000 });
    const fast = plannerView(trees, { level: 1, growthSpeed: 114, money: 30_000 });
    expect(fast.rows.map((row) => row.profitPerHour.exact)).not.toEqual(
      normal.rows.map((row) => row.profitPerHour.exact),
    );
    expect(fast.rows[0]?.upgradePayback.exact).not.toBe(normal.rows[0]?.upgradePayback.exact);
  });

  test('each row: the tree, its page, its figures as in the game with the exact value', () => {
    const [best] = plannerView(trees, { level: 1, growthSpeed: 100, money: 30_000 }).rows;
    expect(best).toMatchObject({
      rank: 1,
      name: 'American Beech',
      href: '/trees/american-beech/',
      level: 3,
      costFromHere: { text: '$24.724K', exact: '$24,724' },
    });
  });

  test('level 1 has no payback; it is where the farm starts', () => {
    const rows = plannerView(trees, { level: 1, growthSpeed: 100, money: 0 }).rows;
    expect(rows[0]?.upgradePayback.text).toBe('—');
  });

  test(`at most ${PLANNER_ROWS} rows, and the summary says how many are within reach`, () => {
    const many = Array.from({ length: PLANNER_ROWS + 5 }, (_unused, index) => ({
      ...trees[0],
      name: `Tree ${index + 1}`,
      href: `/trees/tree-${index + 1}/`,
      level: index + 1,
      logCount: 100 + index,
      upgradeCost: index === 0 ? 0 : 1,
    })) as PlannerTree[];
    const view = plannerView(many, { level: 1, growthSpeed: 100, money: allMoney });
    expect({ rows: view.rows.length, reachable: view.reachable }).toEqual({ rows: PLANNER_ROWS, reachable: 205 });
    expect(view.summary).toMatch(/^205 trees within reach; .*The table shows the best 200\.$/);
  });
});

describe('the next upgrade', () => {
  test('its cost, whether the money covers it, what it adds and when it pays back', () => {
    expect(plannerView(trees, { level: 1, growthSpeed: 100, money: 10_000 }).next).toBe(
      'Next upgrade: American Arborvitae (level 2) for $11.5K; your money does not cover it yet. ' +
        'It adds $15.182K an hour on this plot and pays for itself in 45m 27s of growing it.',
    );
  });

  test('at the top level there is none', () => {
    const top = trees.at(-1);
    expect(plannerView(trees, { level: top?.level ?? 0, growthSpeed: 100, money: 0 }).next).toBe(
      `${top?.name} is the top tree: there is no upgrade after it.`,
    );
  });

  test('an upgrade that earns no more never pays back, and says so', () => {
    const flat = [
      trees[0],
      { ...trees[0], name: 'Flat', level: 2, href: '/trees/flat/', upgradeCost: 10 },
    ] as PlannerTree[];
    expect(plannerView(flat, { level: 1, growthSpeed: 100, money: 0 }).next).toMatch(/so it never pays back\.$/);
  });
});

describe('what a player types', () => {
  test.each([
    ['', Number.POSITIVE_INFINITY],
    ['25000', 25_000],
    ['11,500', 11_500],
    ['$1.5M', 1_500_000],
    [' 2k ', 2000],
    ['3B', 3_000_000_000],
  ])('money %j is %d', (text, money) => expect(readMoney(text)).toEqual({ ok: true, money }));

  test.each(['abc', '-5', '1.5X', '1e9', '12.3.4'])('money %j is an error that says what to type', (text) =>
    expect(readMoney(text)).toEqual({ ok: false, error: expect.stringMatching(/^Money is a number of dollars/) }),
  );

  test('a tree level from the lowest to the highest', () => {
    expect(readLevel('69', trees)).toEqual({ ok: true, level: 69 });
    for (const text of ['0', '107', '2.5', '', 'oak'])
      expect(readLevel(text, trees)).toEqual({ ok: false, error: expect.stringMatching(/whole number from 1 to 106/) });
  });

  test('plots are named by level and speed', () => {
    expect(plotLabel({ level: 1, growthSpeed: 100 })).toBe('Level 1 plot (100%, normal)');
    expect(plotLabel({ level: 3, growthSpeed: 104 })).toBe('Level 3 plot (104%)');
  });
});

test('the data file the script loads gives back every tree and plot', () => {
  const plots = [
    { level: 1, growthSpeed: 100 },
    { level: 2, growthSpeed: 102 },
  ];
  expect(plannerData(JSON.parse(JSON.stringify(plannerFile({ trees, plots }))))).toEqual({ trees, plots });
});

test('the note under the caption names the inputs', () => {
  expect(inputsNote({ level: 3, growthSpeed: 104 }, 5, 1_500_000)).toBe(
    'On the level 3 plot (104%), from level 5, with $1,500,000.',
  );
  expect(inputsNote(undefined, 1, Number.POSITIVE_INFINITY)).toBe(
    'On a normal plot, from level 1, with no money limit.',
  );
});
