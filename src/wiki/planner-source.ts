// The planner's trees and plots, from the wiki's collections (build time only).
import type { PlannerData } from './planner.ts';
import { entriesOf } from './records.ts';
import { recordPath } from './site.ts';

export async function plannerSource(): Promise<PlannerData> {
  const [trees, plots] = await Promise.all([entriesOf('trees'), entriesOf('plots')]);
  return {
    trees: trees.map(({ slug, data }) => ({
      name: data.name,
      href: recordPath('trees', slug),
      level: data.level,
      growthTime: data.growthTime,
      logCount: data.logCount,
      logValue: data.logValue,
      saplingCost: data.saplingCost,
      upgradeCost: data.upgradeCost,
    })),
    plots: plots.map(({ data }) => ({ level: data.level, growthSpeed: data.growthSpeed })),
  };
}
