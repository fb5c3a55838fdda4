// The game's economics: what a tree earns, what reaching it costs and when an upgrade pays for
// itself, and the other figures the wiki derives from the published ones. One module for the
// wiki, the planner page, the client and the CLI, so a figure is the same everywhere.
//
// Exact numbers: every published figure is a whole number below 2^53, and so is every sum and
// product worked out here (checked: a figure past 2^53 is a RangeError, never a silent
// rounding). A division is done last, once, so a quotient is the nearest double to the exact
// ratio. Rounding is for display only, and is not done here.
//
// Plain structural types (no schema library), so the client package's types need none.

/** A tree's published figures the formulas use (a tree record has them all). */
export interface TreeFigures {
  level: number;
  /** Seconds from planting to harvest on a normal plot. */
  growthTime: number;
  /** Logs one harvest yields. */
  logCount: number;
  /** In-game dollars one log sells for. */
  logValue: number;
  /** In-game dollars one sapling costs. */
  saplingCost: number;
  /** In-game dollars to upgrade the farm to this tree; 0 at level 1. */
  upgradeCost: number;
}

/** A plot's figures the formulas use (a plot record has them). */
export interface PlotFigures {
  level: number;
  /** Growth speed in percent; 100 is normal. */
  growthSpeed: number;
}

/** The growth speed of a normal plot (the level 1 plot), in percent. */
export const NORMAL_GROWTH_SPEED = 100;

const SECONDS_PER_HOUR = 3600;
/** 3600 × g ÷ 100 is 36 × g: a whole product for a whole percentage. */
const SECONDS_PER_HOUR_PER_PERCENT = SECONDS_PER_HOUR / NORMAL_GROWTH_SPEED;

/**
 * What the formulas assume where the game does not publish its rules. The wiki's planner page
 * lists them; the CLI's help and the client's README sum them up.
 */
export const PLANNER_ASSUMPTIONS: readonly string[] = [
  'A tree is planted on one plot at a time: every harvest sells all its logs at the log value and ' +
    'buys one sapling to replant at once.',
  'A plot of growth speed g % grows a tree in growth time × 100 ÷ g; 100 % is normal speed.',
  'Cutting, storing and delivering the logs take no time and hold nothing back: the game does not publish ' +
    "how a cutter's efficiency range, a storage's capacity or a vehicle's trips limit a harvest, so " +
    'profit per hour is the most a tree can earn, not a measured rate.',
  'Upgrades go one level at a time from level 1, each paid once at its upgrade cost; a level you have ' +
    'reached lets you plant any tree of that level or below. Plot, cutter, storage and vehicle costs are not ' +
    'counted in the cost to reach a tree.',
  "Trees have no ranges. Where a published figure is a range [min, max] (a cutter's efficiency, a gift's " +
    'rewards), the derived figures use its midpoint: the mean if every amount in it is equally likely.',
];

/** The whole number `value`, or a RangeError naming `what` when it is past 2^53 (no longer exact). */
function exactly(value: number, what: string): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} is ${value}: past 2^53, so it would not be exact`);
  return value;
}

function checkGrowthSpeed(growthSpeed: number): number {
  if (!Number.isFinite(growthSpeed) || growthSpeed <= 0)
    throw new RangeError(`a growth speed is a percentage above 0 (100 is normal), got ${growthSpeed}`);
  return growthSpeed;
}

/**
 * What one harvest sells for: logs per harvest × log value, in in-game dollars.
 *
 * @example harvestValue({ logCount: 119, logValue: 6, ... }) // 714
 */
export function harvestValue(tree: TreeFigures): number {
  return exactly(tree.logCount * tree.logValue, `The harvest value of the level ${tree.level} tree`);
}

/**
 * What one harvest earns once the sapling to replant it is paid: harvest value − sapling cost.
 * Negative when a sapling costs more than the harvest sells for.
 *
 * @example profitPerHarvest({ logCount: 119, logValue: 6, saplingCost: 69, ... }) // 645
 */
export function profitPerHarvest(tree: TreeFigures): number {
  return harvestValue(tree) - tree.saplingCost;
}

/**
 * What the tree earns per hour on a plot of `growthSpeed` % (default 100, normal):
 * profit per harvest × 3600 × (growthSpeed ÷ 100) ÷ growth time in seconds.
 *
 * @example profitPerHour({ growthTime: 60, logCount: 119, logValue: 6, saplingCost: 69, ... }) // 38700
 * @example profitPerHour(sameTree, 110) // 42570: a level 6 plot grows it 10 % faster
 */
export function profitPerHour(tree: TreeFigures, growthSpeed = NORMAL_GROWTH_SPEED): number {
  const scaled = profitPerHarvest(tree) * SECONDS_PER_HOUR_PER_PERCENT * checkGrowthSpeed(growthSpeed);
  if (Number.isInteger(growthSpeed)) exactly(scaled, `The profit per hour of the level ${tree.level} tree`);
  // One division, last: the nearest double to the exact ratio.
  return scaled / tree.growthTime;
}

/**
 * The money to upgrade the farm from level 1 to `level`: the sum of the upgrade costs of the
 * trees of levels 2 to `level` (0 at level 1). `trees` may be in any order; levels above the
 * highest tree add nothing.
 *
 * @example costToReach(trees, 1) // 0
 * @example costToReach(trees, 3) // 11500 + 13224 = 24724 (the upgrade costs of levels 2 and 3)
 */
export function costToReach(trees: readonly TreeFigures[], level: number): number {
  let total = 0;
  for (const tree of trees)
    if (tree.level >= 2 && tree.level <= level) total = exactly(total + tree.upgradeCost, `The cost to reach ${level}`);
  return total;
}

/**
 * Hours until the upgrade to `tree` pays for itself on a plot of `growthSpeed` %: its upgrade
 * cost ÷ (profit per hour of `tree` − profit per hour of `previous`, the tree one level below),
 * on the same plot. null when there is no previous tree (level 1) or when the upgrade does not
 * raise the profit per hour (it never pays back). Whether it rises is decided exactly, on whole
 * numbers, so two equal profits never look apart by a rounding.
 *
 * @example upgradePaybackHours(level2, level1) // 0.7574…: $11,500 ÷ ($53,881.97 − $38,700) an hour
 * @example upgradePaybackHours(level1, undefined) // null
 */
export function upgradePaybackHours(
  tree: TreeFigures,
  previous: TreeFigures | undefined,
  growthSpeed = NORMAL_GROWTH_SPEED,
): number | null {
  if (previous === undefined || tree.level <= 1) return null;
  return paybackHours(tree.upgradeCost, tree, previous, growthSpeed);
}

/**
 * Hours until `cost` is paid back by earning with `to` instead of `from` on the same plot:
 * cost ÷ (profit per hour of `to` − profit per hour of `from`); 0 when nothing is to pay, null
 * when `to` earns no more per hour than `from` (it never pays back).
 *
 * @example paybackHours(24724, level3, level1) // the two upgrades from level 1 to 3, in hours
 */
export function paybackHours(
  cost: number,
  to: TreeFigures,
  from: TreeFigures,
  growthSpeed = NORMAL_GROWTH_SPEED,
): number | null {
  checkGrowthSpeed(growthSpeed);
  // profit ÷ time of one minus the other's, cross-multiplied: whole numbers, exact.
  const gain = exactly(
    profitPerHarvest(to) * from.growthTime - profitPerHarvest(from) * to.growthTime,
    `The profit difference of the level ${to.level} and ${from.level} trees`,
  );
  if (gain <= 0) return null;
  if (cost <= 0) return 0;
  // cost ÷ (36 g × gain ÷ (time to × time from)), in an order that keeps every step in range.
  return ((cost / gain) * to.growthTime * from.growthTime) / (SECONDS_PER_HOUR_PER_PERCENT * growthSpeed);
}

/** A tree's economics on one plot: what `treefarm economics` prints for it. */
export interface TreeEconomics {
  name: string;
  level: number;
  harvestValue: number;
  profitPerHarvest: number;
  profitPerHour: number;
  costToReach: number;
  /** null at level 1, and where the upgrade does not raise the profit per hour. */
  upgradePaybackHours: number | null;
}

/**
 * Every tree's economics on a plot of `growthSpeed` %, in level order, in one pass (cost to
 * reach is a running total). The previous tree of a tree is the one of the level below.
 *
 * @example treeEconomics(trees, 100)[0] // { name: 'African Juniper', level: 1, harvestValue: 714, ... }
 */
export function treeEconomics<T extends TreeFigures & { name: string }>(
  trees: readonly T[],
  growthSpeed = NORMAL_GROWTH_SPEED,
): TreeEconomics[] {
  checkGrowthSpeed(growthSpeed);
  const byLevel = [...trees].sort((a, b) => a.level - b.level);
  let reached = 0;
  return byLevel.map((tree, index) => {
    const before = byLevel[index - 1];
    if (tree.level >= 2) reached = exactly(reached + tree.upgradeCost, `The cost to reach ${tree.level}`);
    return {
      name: tree.name,
      level: tree.level,
      harvestValue: harvestValue(tree),
      profitPerHarvest: profitPerHarvest(tree),
      profitPerHour: profitPerHour(tree, growthSpeed),
      costToReach: reached,
      upgradePaybackHours: upgradePaybackHours(
        tree,
        before?.level === tree.level - 1 ? before : undefined,
        growthSpeed,
      ),
    };
  });
}

/**
 * The growth speed of the plot of `level`, in percent; a RangeError naming the levels there
 * are when no plot has it.
 *
 * @example growthSpeedOf(plots, 3) // 104
 */
export function growthSpeedOf(plots: readonly PlotFigures[], level: number): number {
  const plot = plots.find((candidate) => candidate.level === level);
  if (plot) return plot.growthSpeed;
  const levels = plots.map((candidate) => candidate.level).sort((a, b) => a - b);
  const known = levels.length === 0 ? 'there are none' : `the levels are ${levels[0]} to ${levels.at(-1)}`;
  throw new RangeError(`no plot has level ${level}: ${known}`);
}

/** What the player has: the level their farm has reached, their plot's growth speed, their money. */
export interface PlannerInput {
  level: number;
  growthSpeed: number;
  /** In-game dollars to spend on upgrades; Infinity for no limit. */
  money: number;
}

/** A tree the player can reach, with what reaching it costs from where they are. */
export interface PlanRow extends TreeEconomics {
  /** Upgrade costs from the player's level to this tree's; 0 for a tree at or below it. */
  costFromHere: number;
}

/** The player's next upgrade, one level up. */
export interface NextUpgrade {
  name: string;
  level: number;
  cost: number;
  /** Whether the player's money covers it. */
  affordable: boolean;
  /** Hours of the extra profit per hour to pay for it; null when it never pays back. */
  paybackHours: number | null;
  /** The profit per hour it adds on the player's plot (negative when it earns less). */
  gainPerHour: number;
}

export interface Plan {
  /** The trees within reach, best profit per hour first (ties: lower level first). */
  ranking: PlanRow[];
  /** The player's own tree, if one has their level. */
  current: TreeEconomics | undefined;
  /** The upgrade one level up; null at the top level. */
  next: NextUpgrade | null;
}

/**
 * The planner: every tree the player can reach with their money (upgrading one level at a time
 * from their level; the trees at or below it cost nothing), ranked by profit per hour on their
 * plot, and their next upgrade. `economics` is `treeEconomics(trees, input.growthSpeed)`: every
 * tree in level order, each once.
 *
 * @example
 * const { ranking } = plan(treeEconomics(trees, 104), { level: 1, growthSpeed: 104, money: 30000 });
 * ranking.map((row) => row.level) // [3, 2, 1]: $30,000 reaches level 3 ($24,724), not 4
 */
export function plan(economics: readonly TreeEconomics[], input: PlannerInput): Plan {
  checkGrowthSpeed(input.growthSpeed);
  if (!(input.money >= 0)) throw new RangeError(`money is 0 or more, got ${input.money}`);
  const current = economics.find((row) => row.level === input.level);
  // Cost to reach the player's level: their tree's, or the last one below it.
  const paid = economics.reduce((most, row) => (row.level <= input.level ? row.costToReach : most), 0);
  const ranking: PlanRow[] = [];
  for (const row of economics) {
    const costFromHere = Math.max(0, row.costToReach - paid);
    // Levels go up one at a time: past the first tree out of reach, none is reachable.
    if (costFromHere > input.money) break;
    ranking.push({ ...row, costFromHere });
  }
  ranking.sort((a, b) => b.profitPerHour - a.profitPerHour || a.level - b.level);
  const up = economics.find((row) => row.level === input.level + 1);
  const next: NextUpgrade | null = up
    ? {
        name: up.name,
        level: up.level,
        cost: up.costToReach - paid,
        affordable: up.costToReach - paid <= input.money,
        paybackHours: up.upgradePaybackHours,
        gainPerHour: up.profitPerHour - (current?.profitPerHour ?? 0),
      }
    : null;
  return { ranking, current, next };
}

// The other figures the wiki derives from one record.

/** [min, max], both included. */
export type Range = readonly [number, number];

/**
 * The middle of a range: its mean if every amount in it is equally likely (the game does not
 * publish how it draws one).
 *
 * @example midpoint([20, 30]) // 25
 */
export const midpoint = ([low, high]: Range): number => (low + high) / 2;

/**
 * Harvest value per minute of growth on a normal plot: harvest value ÷ (growth time ÷ 60).
 *
 * @example valuePerMinute({ growthTime: 60, logCount: 119, logValue: 6, ... }) // 714
 */
export const valuePerMinute = (tree: TreeFigures): number => (harvestValue(tree) * 60) / tree.growthTime;

/**
 * How many saplings one harvest pays for: harvest value ÷ sapling cost.
 *
 * @example saplingReturn({ logCount: 119, logValue: 6, saplingCost: 69, ... }) // 10.347…
 */
export const saplingReturn = (tree: TreeFigures): number => harvestValue(tree) / tree.saplingCost;

/**
 * Harvests of this tree whose value adds up to its upgrade cost: upgrade cost ÷ harvest value
 * (0 at level 1). A rough measure: upgradePaybackHours counts the profit the upgrade adds.
 *
 * @example upgradePayback({ logCount: 124, logValue: 8, upgradeCost: 11500, ... }) // 11.59…
 */
export const upgradePayback = (tree: TreeFigures): number => tree.upgradeCost / harvestValue(tree);

/** A cutter's figures the formulas use. */
export interface CutterFigures {
  /** Seconds between two cuts. */
  cooldown: number;
  cost: number;
  /** Percentage range [min, max] of a tree's logs one cut yields. */
  efficiency: Range;
}

/** @example cutsPerMinute({ cooldown: 79, ... }) // 0.759… */
export const cutsPerMinute = (cutter: CutterFigures): number => 60 / cutter.cooldown;

/**
 * Cost ÷ the efficiency range's midpoint.
 *
 * @example costPerEfficiencyPoint({ cost: 5042, efficiency: [30, 40], ... }) // 144.06
 */
export const costPerEfficiencyPoint = (cutter: CutterFigures): number => cutter.cost / midpoint(cutter.efficiency);

/**
 * Midpoint efficiency × cuts per minute, in percent of a tree's logs.
 *
 * @example logShareCutPerMinute({ cooldown: 60, efficiency: [10, 20], ... }) // 15
 */
export const logShareCutPerMinute = (cutter: CutterFigures): number =>
  midpoint(cutter.efficiency) * cutsPerMinute(cutter);

/** Percent faster than a normal plot. @example speedBonus({ growthSpeed: 104, ... }) // 4 */
export const speedBonus = (plot: PlotFigures): number => plot.growthSpeed - NORMAL_GROWTH_SPEED;

/**
 * What a tree's growth time is multiplied by on the plot.
 *
 * @example growthTimeFactor({ growthSpeed: 125, ... }) // 0.8
 */
export const growthTimeFactor = (plot: PlotFigures): number => NORMAL_GROWTH_SPEED / plot.growthSpeed;

/** @example costPerSpeedPercent({ cost: 2993, growthSpeed: 104, ... }) // 28.78 */
export const costPerSpeedPercent = (plot: PlotFigures & { cost: number }): number => plot.cost / plot.growthSpeed;

/** A storage's or a vehicle's cost and capacity in logs (a vehicle's per trip). */
export interface CapacityFigures {
  cost: number;
  capacity: number;
}

/** @example costPerLogOfCapacity({ cost: 159, capacity: 79 }) // 2.01 */
export const costPerLogOfCapacity = (storage: CapacityFigures): number => storage.cost / storage.capacity;

/**
 * Logs a vehicle delivers per minute: capacity × 60 ÷ cooldown.
 *
 * @example logsPerMinute({ capacity: 16, cooldown: 60, cost: 389 }) // 16
 */
export const logsPerMinute = (vehicle: CapacityFigures & { cooldown: number }): number =>
  (vehicle.capacity * 60) / vehicle.cooldown;

/** @example costPerLogPerMinute({ capacity: 16, cooldown: 60, cost: 389 }) // 24.31 */
export const costPerLogPerMinute = (vehicle: CapacityFigures & { cooldown: number }): number =>
  vehicle.cost / logsPerMinute(vehicle);
