// The planner page's model: from the trees, the plots and the player's inputs to the words and
// figures the page shows. The page renders it at build time (the opening plan, openingPlan) and
// its script renders it again in the browser as the inputs change, so both show the same thing.
// No schema library and no Node module here: the browser bundle imports this file.
import {
  NORMAL_GROWTH_SPEED,
  plan,
  treeEconomics,
  type Plan,
  type PlannerInput,
  type PlotFigures,
  type TreeFigures,
} from '../contract/economics.ts';
import { exact, shown } from '../contract/format.ts';

/** A tree as the planner needs it: its figures, its name and its page. */
export interface PlannerTree extends TreeFigures {
  name: string;
  href: string;
}

/** What the page's script loads: every tree and plot. */
export interface PlannerData {
  trees: PlannerTree[];
  plots: PlotFigures[];
}

/** The planner's data file, as compact as JSON allows: one array of fields per record. */
export interface PlannerFile {
  treeFields: ['name', 'href', 'level', 'growthTime', 'logCount', 'logValue', 'saplingCost', 'upgradeCost'];
  trees: [string, string, number, number, number, number, number, number][];
  plotFields: ['level', 'growthSpeed'];
  plots: [number, number][];
}

export function plannerFile({ trees, plots }: PlannerData): PlannerFile {
  return {
    treeFields: ['name', 'href', 'level', 'growthTime', 'logCount', 'logValue', 'saplingCost', 'upgradeCost'],
    trees: trees.map((tree) => [
      tree.name,
      tree.href,
      tree.level,
      tree.growthTime,
      tree.logCount,
      tree.logValue,
      tree.saplingCost,
      tree.upgradeCost,
    ]),
    plotFields: ['level', 'growthSpeed'],
    plots: plots.map((plot) => [plot.level, plot.growthSpeed]),
  };
}

export function plannerData(file: PlannerFile): PlannerData {
  return {
    trees: file.trees.map(([name, href, level, growthTime, logCount, logValue, saplingCost, upgradeCost]) => ({
      name,
      href,
      level,
      growthTime,
      logCount,
      logValue,
      saplingCost,
      upgradeCost,
    })),
    plots: file.plots.map(([level, growthSpeed]) => ({ level, growthSpeed })),
  };
}

/** Rows the ranking shows at most: 106 real trees fit; a data set of thousands shows its best. */
export const PLANNER_ROWS = 200;

export interface Figure {
  text: string;
  exact: string;
}

export interface PlannerRow {
  rank: number;
  name: string;
  href: string;
  level: number;
  profitPerHour: Figure;
  costFromHere: Figure;
  upgradePayback: Figure;
}

export interface PlannerView {
  rows: PlannerRow[];
  /** How many trees are within reach (the rows are the best PLANNER_ROWS of them). */
  reachable: number;
  /** One sentence on the ranking, for the status line. */
  summary: string;
  /** One or two sentences on the next upgrade. */
  next: string;
}

const figure = (unit: 'money' | 'hours', value: number): Figure => ({
  text: shown(unit, value),
  exact: exact(unit, value),
});
const money = (value: number) => shown('money', value);
const NO_PAYBACK: Figure = { text: 'never', exact: 'never: it earns no more per hour than the tree below' };
const FIRST_LEVEL: Figure = { text: '—', exact: 'level 1 is where the farm starts' };

/** What the planner opens on: inputs and the plot they name. */
export interface OpeningPlan {
  level: number;
  plot: PlotFigures | undefined;
  money: number;
}

/**
 * The planner opens on a farm at its start: the lowest tree, the normal plot, and no money saved
 * yet, a plan every player has had (docs/planner.md). It ranks the one tree the player has and
 * names the first upgrade, its cost and payback; "no money limit" ranked every tree, a plan
 * no player has.
 */
export function openingPlan({ trees, plots }: PlannerData): OpeningPlan {
  const level = trees.reduce((lowest, tree) => Math.min(lowest, tree.level), trees[0]?.level ?? 1);
  const plot = plots.find((candidate) => candidate.growthSpeed === NORMAL_GROWTH_SPEED) ?? plots[0];
  return { level, plot, money: 0 };
}

export function plotLabel(plot: PlotFigures): string {
  const speed = plot.growthSpeed === NORMAL_GROWTH_SPEED ? '100%, normal' : `${plot.growthSpeed}%`;
  return `Level ${plot.level} plot (${speed})`;
}

/** The line under the ranking's caption: the inputs it was worked out for. */
export function inputsNote(plot: PlotFigures | undefined, level: number, money: number): string {
  const where = plot ? `the level ${plot.level} plot (${plot.growthSpeed}%)` : 'a normal plot';
  const limit = Number.isFinite(money) ? `with ${exact('money', money)}` : 'with no money limit';
  return `On ${where}, from level ${level}, ${limit}.`;
}

/** What the planner shows for the inputs: the ranking, a summary and the next upgrade. */
export function plannerView(trees: readonly PlannerTree[], input: PlannerInput): PlannerView {
  const hrefs = new Map(trees.map((tree) => [tree.level, tree.href]));
  return planView(plan(treeEconomics(trees, input.growthSpeed), input), (level) => hrefs.get(level) ?? '');
}

/**
 * What the planner shows for a plan, its trees' pages from `hrefOf` (none: ''): the wiki's page
 * works the plan out itself, the MCP planner view (src/apps/mcp/views) is given the plan tool's.
 */
export function planView(result: Plan, hrefOf: (level: number) => string): PlannerView {
  const rows = result.ranking.slice(0, PLANNER_ROWS).map(
    (row, index): PlannerRow => ({
      rank: index + 1,
      name: row.name,
      href: hrefOf(row.level),
      level: row.level,
      profitPerHour: figure('money', row.profitPerHour),
      costFromHere: figure('money', row.costFromHere),
      upgradePayback:
        row.upgradePaybackHours !== null
          ? figure('hours', row.upgradePaybackHours)
          : row.level === 1
            ? FIRST_LEVEL
            : NO_PAYBACK,
    }),
  );
  const best = result.ranking[0];
  const reachable = result.ranking.length;
  const summary = best
    ? `${reachable} ${reachable === 1 ? 'tree' : 'trees'} within reach; the best is ${best.name} ` +
      `(level ${best.level}) at ${money(best.profitPerHour)} an hour` +
      (reachable > rows.length ? `. The table shows the best ${rows.length}.` : '.')
    : 'No tree is within reach.';
  return { rows, reachable, summary, next: nextUpgrade(result) };
}

function nextUpgrade({ next, current }: Plan): string {
  if (!next)
    return current
      ? `${current.name} is the top tree: there is no upgrade after it.`
      : 'There is no tree above your level.';
  const what = `Next upgrade: ${next.name} (level ${next.level}) for ${money(next.cost)}`;
  const afford = next.affordable ? 'your money covers it' : 'your money does not cover it yet';
  if (next.paybackHours === null)
    return `${what}; ${afford}. It earns no more per hour than your tree on this plot, so it never pays back.`;
  return (
    `${what}; ${afford}. It adds ${money(next.gainPerHour)} an hour on this plot ` +
    `and pays for itself in ${shown('hours', next.paybackHours)} of growing it.`
  );
}

export type MoneyReading = { ok: true; money: number } | { ok: false; error: string };

const SUFFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, b: 1e9, t: 1e12 };

/**
 * The money a player typed: digits with optional grouping ("11,500"), a "$", and the game's
 * suffixes ("1.5M"); empty is no limit (Infinity).
 */
export function readMoney(text: string): MoneyReading {
  const plain = text.replace(/[\s,_$]/g, '').toLowerCase();
  if (plain === '') return { ok: true, money: Number.POSITIVE_INFINITY };
  const match = /^(\d+(?:\.\d+)?|\.\d+)([kmbt]?)$/.exec(plain);
  const scale = SUFFIX[match?.[2] ?? ''];
  if (!match || scale === undefined)
    return { ok: false, error: `Money is a number of dollars such as 25000, 11,500 or 1.5M; got "${text.trim()}".` };
  return { ok: true, money: Math.floor(Number(match[1]) * scale) };
}

export type LevelReading = { ok: true; level: number } | { ok: false; error: string };

/** The tree level a player typed: a whole number from the lowest level to the highest. */
export function readLevel(text: string, trees: readonly PlannerTree[]): LevelReading {
  const low = trees.reduce((lowest, tree) => Math.min(lowest, tree.level), Number.POSITIVE_INFINITY);
  const high = trees.reduce((highest, tree) => Math.max(highest, tree.level), 0);
  const level = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(level) || level < low || level > high)
    return { ok: false, error: `Your tree level is a whole number from ${low} to ${high}; got "${text.trim()}".` };
  return { ok: true, level };
}
