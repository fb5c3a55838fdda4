// Release ids, with no schema library: the id rule, its parts and their order. The build names
// and orders releases by them, releases.ts validates a release's file with the rule, and the
// edge and the offline client read a pinned release's id (the online client must not pull zod in).

/** `YYYY-MM-DD`, then `-2`, `-3`, ... for later releases of the same UTC day. */
export const RELEASE_ID = /^(\d{4}-\d{2}-\d{2})(?:-([2-9]|[1-9]\d+))?$/;

export interface ReleaseIdParts {
  date: string;
  /** 1 for the day's first release, 2 for `-2`, ... */
  sequence: number;
}

/** Whether YYYY-MM-DD is a day of the calendar: Date.parse takes February 30 as March 2. */
function isCalendarDay(date: string): boolean {
  const time = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(date);
}

/** The date and sequence of a release id, or undefined when it is not one. */
export function releaseIdParts(id: string): ReleaseIdParts | undefined {
  const match = RELEASE_ID.exec(id);
  if (!match?.[1] || !isCalendarDay(match[1])) return undefined;
  return { date: match[1], sequence: match[2] ? Number(match[2]) : 1 };
}

/** The id of the release after `previous` (if any) made on `date`. */
export function nextReleaseId(date: string, previous: ReleaseIdParts | undefined): string {
  if (previous?.date !== date) return date;
  return `${date}-${previous.sequence + 1}`;
}

/** Oldest first: by date, then by sequence (`-10` after `-9`). */
export function byReleaseOrder(a: ReleaseIdParts, b: ReleaseIdParts): number {
  return a.date < b.date ? -1 : a.date > b.date ? 1 : a.sequence - b.sequence;
}
