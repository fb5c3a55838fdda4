// The ids of the kinds, in registry order, with no schema library: the online client needs
// them at run time and must not pull zod in. kinds.ts defines one kind per id, in this order.
export const kindIds = ['trees', 'cutters', 'gifts', 'plots', 'storages', 'vehicles'] as const;

export type KindId = (typeof kindIds)[number];
