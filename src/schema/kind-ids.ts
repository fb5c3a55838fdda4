// The ids of the kinds, in registry order, and what each kind is apart from its schemas, with no
// schema library: the online client and the MCP Apps views (src/apps/mcp/views) need them at run
// time and must not pull zod in. kinds.ts defines one kind per id, in this order, from these facts.
export const kindIds = ['trees', 'cutters', 'gifts', 'plots', 'storages', 'vehicles'] as const;

export type KindId = (typeof kindIds)[number];

export interface KindFacts {
  /** The noun of API messages ("The requested tree data ..."). */
  noun: string;
  /** False for kinds without names (plots): level search only. */
  named: boolean;
  /** False where several records may share a level (gifts, ordered by `order`). */
  uniqueLevels: boolean;
}

export const kindFacts = {
  trees: { noun: 'tree', named: true, uniqueLevels: true },
  cutters: { noun: 'cutter', named: true, uniqueLevels: true },
  gifts: { noun: 'gift', named: true, uniqueLevels: false },
  plots: { noun: 'plot', named: false, uniqueLevels: true },
  storages: { noun: 'storage', named: true, uniqueLevels: true },
  vehicles: { noun: 'vehicle', named: true, uniqueLevels: true },
} as const satisfies Record<KindId, KindFacts>;

/** "small" -> "Small". */
export const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A kind's heading: "Trees", "Storages". */
export const kindTitle = (kind: KindId): string => capitalized(kind);
