// Every tree's economics from either client (online or a bundle): the records it needs,
// fetched once, through the formulas of src/contract/economics.ts, so a bot gets the figures
// the wiki and the CLI show.
import { growthSpeedOf, NORMAL_GROWTH_SPEED, treeEconomics, type TreeEconomics } from '../contract/economics.ts';
import type { CallOptions } from './request.ts';
import type { TreefarmData } from './types.ts';

export interface EconomicsOptions extends CallOptions {
  /** The level of the player's plot (its growth speed applies); a normal plot (100 %) when absent. */
  plot?: number;
}

/**
 * Every tree's economics on the plot of level `plot` (a normal plot without it), in level
 * order: name, level, harvestValue, profitPerHarvest, profitPerHour, costToReach and
 * upgradePaybackHours. A plot level no plot has is a RangeError that names the levels.
 *
 * @example const rows = await economics(api, { plot: 3 }); rows[0].profitPerHour // 40248
 */
export async function economics(
  data: Pick<TreefarmData, 'trees' | 'plots'>,
  { plot, ...options }: EconomicsOptions = {},
): Promise<TreeEconomics[]> {
  const [trees, growthSpeed] = await Promise.all([
    data.trees(null, options),
    plot === undefined ? NORMAL_GROWTH_SPEED : data.plots(null, options).then((plots) => growthSpeedOf(plots, plot)),
  ]);
  return treeEconomics(trees, growthSpeed);
}
