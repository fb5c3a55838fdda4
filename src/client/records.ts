// The records the API serves, as plain types: the package's .d.ts must not need zod. They
// are checked against the zod schemas (src/schema/records.ts) and against the types
// openapi-typescript generates from the OpenAPI document (test/client/record-types.test.ts).
import type { KindId } from '../schema/kind-ids.ts';

/** [min, max], both included. */
export type Range = [number, number];

export interface Tree {
  name: string;
  funfact: string;
  /** One region, or several joined by ", ". */
  plantingRegion: string;
  level: number;
  /** Seconds from planting to harvest. */
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

export interface Cutter {
  level: number;
  name: string;
  /** Seconds between two cuts. */
  cooldown: number;
  cost: number;
  /** Percentage range [min, max] of a tree's logs that one cut yields. */
  efficiency: Range;
}

export interface Gift {
  level: number;
  name: string;
  /** [min, max] in-game dollars. */
  money: Range;
  logs: Range;
  saplings: Range;
  cutters: Range;
  plots: Range;
  vehicles: Range;
}

export interface Plot {
  level: number;
  cost: number;
  /** Growth speed in percent; 100 is normal. */
  growthSpeed: number;
}

export interface Storage {
  level: number;
  name: string;
  cost: number;
  /** Logs the storage holds. */
  capacity: number;
}

export interface Vehicle {
  level: number;
  name: string;
  /** Seconds between two trips. */
  cooldown: number;
  cost: number;
  /** Logs delivered per trip. */
  capacity: number;
}

export interface RecordsByKind {
  trees: Tree;
  cutters: Cutter;
  gifts: Gift;
  plots: Plot;
  storages: Storage;
  vehicles: Vehicle;
}

/** How many records of each kind a bundle or release holds. */
export type Counts = Record<KindId, number>;
