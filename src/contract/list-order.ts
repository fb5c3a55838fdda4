// The order of every list the API serves, which the build, the wiki and the offline client
// share: level ascending; records sharing a level keep the order their content declares.

/** What list order looks at: a record's slug and its level (and, for gifts, its order). */
export interface ListOrdered {
  slug: string;
  data: { level: number; order?: number };
}

/** A record's declared position within its level (gifts); 0 for kinds with one record per level. */
export const orderOf = (entry: ListOrdered): number => entry.data.order ?? 0;

/** Level ascending, then declared order, then slug, so the order never depends on the file system. */
export function byListOrder(a: ListOrdered, b: ListOrdered): number {
  return a.data.level - b.data.level || orderOf(a) - orderOf(b) || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
}
