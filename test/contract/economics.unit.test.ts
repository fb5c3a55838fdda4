// The economics formulas, rule by rule, on cases worked out by hand: the first two trees of the
// game (African Juniper, level 1; American Arborvitae, level 2), a fast plot, an upgrade that
// does not pay, and the limits of exact numbers.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import {
  costPerEfficiencyPoint,
  costPerLogOfCapacity,
  costPerLogPerMinute,
  costPerSpeedPercent,
  costToReach,
  cutsPerMinute,
  growthSpeedOf,
  growthTimeFactor,
  harvestValue,
  logShareCutPerMinute,
  logsPerMinute,
  midpoint,
  NORMAL_GROWTH_SPEED,
  paybackHours,
  plan,
  PLANNER_ASSUMPTIONS,
  profitPerHarvest,
  profitPerHour,
  saplingReturn,
  speedBonus,
  treeEconomics,
  upgradePayback,
  upgradePaybackHours,
  valuePerMinute,
  type TreeFigures,
} from '../../src/contract/economics.ts';
import type { Tree } from '../../src/schema/records.ts';

// The game's figures of its first three trees.
const juniper = {
  name: 'African Juniper',
  level: 1,
  growthTime: 60,
  logCount: 119,
  logValue: 6,
  saplingCost: 69,
  upgradeCost: 0,
};
const arborvitae = {
  name: 'American Arborvitae',
  level: 2,
  growthTime: 61,
  logCount: 124,
  logValue: 8,
  saplingCost: 79,
  upgradeCost: 11_500,
};
const beech = {
  name: 'American Beech',
  level: 3,
  growthTime: 63,
  logCount: 131,
  logValue: 9,
  saplingCost: 91,
  upgradeCost: 13_224,
};
const firstThree = [juniper, arborvitae, beech];

/** A tree of `level` earning `profit` a harvest every `growthTime` seconds (no sapling cost). */
const earning = (
  level: number,
  profit: number,
  growthTime: number,
  upgradeCost = 1000,
): TreeFigures & { name: string } => ({
  name: `Tree ${level}`,
  level,
  growthTime,
  logCount: profit,
  logValue: 1,
  saplingCost: 0,
  upgradeCost,
});

describe('harvestValue = logCount × logValue', () => {
  test('level 1: 119 logs × $6 = $714', () => expect(harvestValue(juniper)).toBe(714));
  test('level 2: 124 logs × $8 = $992', () => expect(harvestValue(arborvitae)).toBe(992));
});

describe('profitPerHarvest = harvestValue − saplingCost', () => {
  test('level 1: $714 − $69 = $645', () => expect(profitPerHarvest(juniper)).toBe(645));
  test('a sapling dearer than the harvest: a loss', () =>
    expect(profitPerHarvest({ ...juniper, saplingCost: 800 })).toBe(-86));
});

describe('profitPerHour = profitPerHarvest × 3600 × (g ÷ 100) ÷ growthTime', () => {
  test('level 1 on a normal plot: $645 a minute, $38,700 an hour', () => expect(profitPerHour(juniper)).toBe(38_700));
  test('the plot defaults to normal speed', () =>
    expect(profitPerHour(arborvitae)).toBe(profitPerHour(arborvitae, NORMAL_GROWTH_SPEED)));
  test('level 2: $913 every 61 s is 3,286,800 ÷ 61 an hour, one division', () =>
    expect(profitPerHour(arborvitae)).toBe(3_286_800 / 61));
  test('a fast plot (114 %): level 1 earns $645 × 36 × 114 ÷ 60 = $44,118 an hour', () =>
    expect(profitPerHour(juniper, 114)).toBe(44_118));
  test('a fast plot: level 2 earns 913 × 36 × 114 ÷ 61 = 3,746,952 ÷ 61', () =>
    expect(profitPerHour(arborvitae, 114)).toBe(3_746_952 / 61));
  test.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('a growth speed of %s is a RangeError', (speed) =>
    expect(() => profitPerHour(juniper, speed)).toThrow(/growth speed is a percentage above 0/),
  );
});

describe('costToReach = the upgrade costs of levels 2 to L', () => {
  test('level 1: 0', () => expect(costToReach(firstThree, 1)).toBe(0));
  test('level 2: $11,500', () => expect(costToReach(firstThree, 2)).toBe(11_500));
  test('level 3: $11,500 + $13,224 = $24,724, in any order', () =>
    expect(costToReach([beech, juniper, arborvitae], 3)).toBe(24_724));
  test('a level above every tree adds nothing more', () => expect(costToReach(firstThree, 50)).toBe(24_724));
  test('a level 1 upgrade cost, if any, is never counted', () =>
    expect(costToReach([{ ...juniper, upgradeCost: 999 }, arborvitae], 2)).toBe(11_500));
});

describe('upgradePaybackHours = upgradeCost(L) ÷ (profitPerHour(L) − profitPerHour(L − 1))', () => {
  test('level 1: null (nothing to upgrade from)', () => {
    expect(upgradePaybackHours(juniper, undefined)).toBeNull();
    expect(upgradePaybackHours({ ...juniper, upgradeCost: 5 }, juniper)).toBeNull();
  });

  test('level 2 on a normal plot: $11,500 ÷ ($53,881.97 − $38,700) = 701,500 ÷ 926,100 hours', () => {
    // 3,286,800 ÷ 61 − 38,700 = 926,100 ÷ 61, so the payback is 11,500 × 61 ÷ 926,100.
    expect(upgradePaybackHours(arborvitae, juniper)).toBeCloseTo(701_500 / 926_100, 14);
  });

  test('a fast plot (114 %) pays back sooner: 11,500 × 61 ÷ 1,055,754 hours', () => {
    // 3,746,952 ÷ 61 − 44,118 = 1,055,754 ÷ 61.
    expect(upgradePaybackHours(arborvitae, juniper, 114)).toBeCloseTo(701_500 / 1_055_754, 14);
    expect(upgradePaybackHours(arborvitae, juniper, 114)).toBeCloseTo((701_500 / 926_100) * (100 / 114), 14);
  });

  test('an equal profit per hour never pays back: null', () => {
    // $100 a minute both: 100 every 60 s and 200 every 120 s.
    expect(upgradePaybackHours(earning(2, 200, 120), earning(1, 100, 60))).toBeNull();
  });

  test('a lower profit per hour never pays back: null', () =>
    expect(upgradePaybackHours(earning(2, 100, 120), earning(1, 100, 60))).toBeNull());

  test('whether the profit rises is decided exactly: 1/3 and 3/9 of a dollar a second are equal', () =>
    expect(upgradePaybackHours(earning(2, 3, 9), earning(1, 1, 3))).toBeNull());

  test('a level 1 tree has no payback, whatever is given as the tree below', () =>
    expect(upgradePaybackHours({ ...juniper, upgradeCost: 500 }, earning(0, 1, 60))).toBeNull());

  test('a free upgrade that earns more pays back at once: 0 hours', () =>
    expect(upgradePaybackHours(earning(2, 200, 60, 0), earning(1, 100, 60))).toBe(0));
});

describe('paybackHours: a cost repaid by what one tree earns over another', () => {
  test('$3,600 repaid by $1 a second more is 1 hour', () =>
    expect(paybackHours(3600, earning(2, 120, 60), earning(1, 60, 60))).toBe(1));
  test('a cost of less than 0 (money back) is repaid at once: 0 hours', () =>
    expect(paybackHours(-3600, earning(2, 120, 60), earning(1, 60, 60))).toBe(0));
  test('on a 200 % plot, half an hour', () =>
    expect(paybackHours(3600, earning(2, 120, 60), earning(1, 60, 60), 200)).toBe(0.5));
});

describe('treeEconomics: every tree on one plot, in level order', () => {
  test('the first two trees, worked by hand', () => {
    expect(treeEconomics([arborvitae, juniper])).toEqual([
      {
        name: 'African Juniper',
        level: 1,
        harvestValue: 714,
        profitPerHarvest: 645,
        profitPerHour: 38_700,
        costToReach: 0,
        upgradePaybackHours: null,
      },
      {
        name: 'American Arborvitae',
        level: 2,
        harvestValue: 992,
        profitPerHarvest: 913,
        profitPerHour: 3_286_800 / 61,
        costToReach: 11_500,
        upgradePaybackHours: upgradePaybackHours(arborvitae, juniper),
      },
    ]);
  });

  test("a level 1 tree's upgrade cost, if any, is not in any cost to reach", () =>
    expect(treeEconomics([{ ...juniper, upgradeCost: 500 }, arborvitae]).map((row) => row.costToReach)).toEqual([
      0, 11_500,
    ]));

  test('a tree whose level below is missing has no payback', () =>
    expect(treeEconomics([juniper, beech])[1]?.upgradePaybackHours).toBeNull());
});

describe('growthSpeedOf: a plot by level', () => {
  const plots = [
    { level: 1, growthSpeed: 100 },
    { level: 2, growthSpeed: 102 },
  ];
  test('level 2: 102 %', () => expect(growthSpeedOf(plots, 2)).toBe(102));
  test('an unknown level names the levels there are', () =>
    expect(() => growthSpeedOf(plots, 9)).toThrow('no plot has level 9: the levels are 1 to 2'));
  test('the levels named are the lowest and highest, in whatever order the plots come', () => {
    const shuffled = [8, 1, 10, 3].map((level) => ({ level, growthSpeed: 100 + level }));
    expect(() => growthSpeedOf(shuffled, 9)).toThrow('no plot has level 9: the levels are 1 to 10');
  });
  test('with no plots, it says there are none', () =>
    expect(() => growthSpeedOf([], 1)).toThrow('no plot has level 1: there are none'));
});

describe('plan: the trees within reach, best profit per hour first', () => {
  const economics = treeEconomics(firstThree, 104);
  test('$30,000 from level 1 reaches level 3 ($24,724): three trees, the best first', () =>
    expect(plan(economics, { level: 1, growthSpeed: 104, money: 30_000 }).ranking.map((row) => row.level)).toEqual([
      3, 2, 1,
    ]));

  test('$20,000 reaches only level 2; the money decides the ranking', () =>
    expect(plan(economics, { level: 1, growthSpeed: 104, money: 20_000 }).ranking.map((row) => row.level)).toEqual([
      2, 1,
    ]));

  test('the cost from your level leaves out the upgrades made; trees below cost nothing', () => {
    const { ranking } = plan(economics, { level: 2, growthSpeed: 104, money: 13_224 });
    expect(ranking.map((row) => [row.level, row.costFromHere])).toEqual([
      [3, 13_224],
      [2, 0],
      [1, 0],
    ]);
  });

  test('the next upgrade: its cost, whether the money covers it, what it adds and its payback', () => {
    const { next, current } = plan(economics, { level: 1, growthSpeed: 104, money: 10_000 });
    expect(current?.name).toBe('African Juniper');
    expect(next).toEqual({
      name: 'American Arborvitae',
      level: 2,
      cost: 11_500,
      affordable: false,
      gainPerHour: profitPerHour(arborvitae, 104) - profitPerHour(juniper, 104),
      paybackHours: upgradePaybackHours(arborvitae, juniper, 104),
    });
  });

  test('from a higher level: your own tree, and the next upgrade costs only its own step', () => {
    const { current, next } = plan(economics, { level: 2, growthSpeed: 104, money: 13_224 });
    expect(current?.name).toBe('American Arborvitae');
    expect(next).toMatchObject({ level: 3, cost: 13_224, affordable: true });
  });

  test('money of exactly the cost covers the next upgrade', () =>
    expect(plan(economics, { level: 1, growthSpeed: 104, money: 11_500 }).next?.affordable).toBe(true));

  test('with no tree of your level, the next upgrade adds all its profit per hour', () => {
    const gap = treeEconomics([arborvitae, beech], 104);
    const { current, next } = plan(gap, { level: 1, growthSpeed: 104, money: 0 });
    expect(current).toBeUndefined();
    expect(next).toMatchObject({ level: 2, gainPerHour: profitPerHour(arborvitae, 104) });
  });

  test('no next upgrade at the top level', () =>
    expect(plan(economics, { level: 3, growthSpeed: 104, money: 0 }).next).toBeNull());

  test('ties rank the lower level first', () => {
    const tied = treeEconomics([earning(1, 100, 60), earning(2, 200, 120, 0)]);
    expect(plan(tied, { level: 1, growthSpeed: 100, money: 0 }).ranking.map((row) => row.level)).toEqual([1, 2]);
  });

  test('negative money is a RangeError', () =>
    expect(() => plan(economics, { level: 1, growthSpeed: 100, money: -1 })).toThrow(/money is 0 or more/));
});

describe('a growth speed is a percentage above 0', () => {
  const refused = /a growth speed is a percentage above 0 \(100 is normal\), got 0/;
  test('treeEconomics refuses 0, even with no trees', () => expect(() => treeEconomics([], 0)).toThrow(refused));
  test('paybackHours refuses 0', () =>
    expect(() => paybackHours(1, earning(2, 120, 60), earning(1, 60, 60), 0)).toThrow(refused));
  test('plan refuses 0', () =>
    expect(() => plan(treeEconomics(firstThree), { level: 1, growthSpeed: 0, money: 0 })).toThrow(refused));
});

describe('exact numbers', () => {
  test('a product past 2^53 is a RangeError naming the figure, not a rounded figure', () =>
    expect(() => harvestValue({ ...juniper, logCount: 2 ** 40, logValue: 2 ** 14 })).toThrow(
      new RangeError(`The harvest value of the level 1 tree is ${2 ** 54}: past 2^53, so it would not be exact`),
    ));

  test('a profit per hour past 2^53 is a RangeError naming the tree', () =>
    expect(() => profitPerHour(earning(7, 2 ** 50, 60))).toThrow(/^The profit per hour of the level 7 tree is /));

  test('a growth speed that is not whole gives a fraction, not a RangeError', () =>
    expect(profitPerHour(earning(1, 1, 60), 100.1)).toBeCloseTo(60.06, 10));

  test('a cost to reach past 2^53 is a RangeError naming the level', () => {
    const dear = [earning(2, 1, 60, 2 ** 52), earning(3, 1, 60, 2 ** 52)];
    expect(() => costToReach(dear, 3)).toThrow(/^The cost to reach 3 is /);
    expect(() => treeEconomics(dear)).toThrow(/^The cost to reach 3 is /);
  });

  test('a profit difference past 2^53 is a RangeError naming both trees', () =>
    expect(() => paybackHours(1, earning(2, 2 ** 52, 4), earning(1, 1, 60))).toThrow(
      /^The profit difference of the level 2 and 1 trees is /,
    ));

  test("every figure of the game's trees stays exact, on the fastest plot too", () => {
    const content = loadContent(join(projectDir, 'content'));
    const trees = content.entries.trees.map((entry) => entry.data as Tree);
    const fastest = Math.max(
      ...content.entries.plots.map((entry) => (entry.data as { growthSpeed: number }).growthSpeed),
    );
    const rows = treeEconomics(trees, fastest);
    expect(rows).toHaveLength(trees.length);
    for (const row of rows) {
      expect(Number.isSafeInteger(row.harvestValue) && Number.isSafeInteger(row.costToReach)).toBe(true);
      expect(row.upgradePaybackHours === null || row.upgradePaybackHours > 0).toBe(true);
    }
    // The last cost to reach is the sum of all upgrade costs, above 2^31.
    expect(rows.at(-1)?.costToReach).toBe(trees.reduce((sum, tree) => sum + tree.upgradeCost, 0));
    expect(rows.at(-1)?.costToReach).toBeGreaterThan(2 ** 31);
  });
});

describe("the wiki's derived figures, one formula each", () => {
  test('midpoint of [2, 5] = 3.5', () => expect(midpoint([2, 5])).toBe(3.5));
  test('valuePerMinute = harvest value ÷ growth time in minutes: $992 every 61 s', () =>
    expect(valuePerMinute(arborvitae)).toBe((992 * 60) / 61));
  test('saplingReturn = harvest value ÷ sapling cost: 714 ÷ 69', () => expect(saplingReturn(juniper)).toBe(714 / 69));
  test('upgradePayback = upgrade cost ÷ harvest value: 11,500 ÷ 992 harvests', () =>
    expect(upgradePayback(arborvitae)).toBe(11_500 / 992));

  const cutter = { cooldown: 4, cost: 100, efficiency: [2, 6] as const };
  test('cutsPerMinute = 60 ÷ cooldown: 15 every 4 s', () => expect(cutsPerMinute(cutter)).toBe(15));
  test('costPerEfficiencyPoint = cost ÷ average efficiency: $100 ÷ 4', () =>
    expect(costPerEfficiencyPoint(cutter)).toBe(25));
  test('logShareCutPerMinute = average efficiency × cuts per minute: 4 × 15', () =>
    expect(logShareCutPerMinute(cutter)).toBe(60));

  const plot = { level: 5, growthSpeed: 125, cost: 500 };
  test('speedBonus = growth speed − 100: 25', () => expect(speedBonus(plot)).toBe(25));
  test('growthTimeFactor = 100 ÷ growth speed: 0.8', () => expect(growthTimeFactor(plot)).toBe(0.8));
  test('costPerSpeedPercent = cost ÷ growth speed: $500 ÷ 125', () => expect(costPerSpeedPercent(plot)).toBe(4));

  test('costPerLogOfCapacity = cost ÷ capacity: $300 ÷ 50', () =>
    expect(costPerLogOfCapacity({ cost: 300, capacity: 50 })).toBe(6));
  const vehicle = { cost: 320, capacity: 8, cooldown: 30 };
  test('logsPerMinute = capacity × 60 ÷ cooldown: 8 logs every 30 s', () => expect(logsPerMinute(vehicle)).toBe(16));
  test('costPerLogPerMinute = cost ÷ logs per minute: $320 ÷ 16', () => expect(costPerLogPerMinute(vehicle)).toBe(20));
});

test('the planner states its assumptions where the game publishes no rule', () => {
  const words = PLANNER_ASSUMPTIONS.join(' ');
  for (const topic of ['cutter', 'storage', 'vehicle', 'midpoint', 'growth speed']) expect(words).toContain(topic);
});
