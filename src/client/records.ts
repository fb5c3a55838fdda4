// The records the API serves, as plain types: the package's .d.ts must not need zod. They
// are checked against the zod schemas (src/schema/records.ts) and against the types
// openapi-typescript generates from the OpenAPI document (test/client/record-types.test.ts).
import type { Range as FigureRange, TreeFigures } from '../contract/economics.ts';
import type { KindId } from '../schema/kind-ids.ts';

/** [min, max], both included: the contract's range (economics.ts) as a record holds it, a plain array. */
export type Range = [...FigureRange];

/** A tree: its name and words, and the figures the economics formulas use (level, growth, logs, costs). */
export interface Tree extends TreeFigures {
  name: string;
  funfact: string;
  /** One region, or several joined by ", ". */
  plantingRegion: string;
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

/** A record as a release names it: its kind, name (none for plots) and level. */
export interface ChangedRecord {
  kind: KindId;
  name?: string;
  level: number;
}

/** What changed in a release against the one before it; records matched by kind and file. */
export interface ReleaseChanges {
  added: ChangedRecord[];
  removed: ChangedRecord[];
  /** Each changed field with its value before and in the release (null: absent). */
  changed: (ChangedRecord & { fields: Record<string, { from: unknown; to: unknown }> })[];
}

/** One data release, as GET /api/releases lists it. */
export interface ReleaseSummary {
  /** The UTC date YYYY-MM-DD, then -2, -3, ... for later releases that day. */
  id: string;
  date: string;
  /** The data version: X-Data-Version of answers pinned to this release. */
  version: string;
  notes: string;
  counts: Counts;
  changes: ReleaseChanges;
}
