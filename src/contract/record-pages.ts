// Where each current record's wiki page is: the build names a record's page by its content
// file (the slug), which no API record carries, so the build writes one index-only body per
// kind (pagesRoute) listing every record's level, name and slug, and the edge reads it to link
// an answer to its page (the Discord app's embeds).
import type { KindId } from '../schema/kinds.ts';
import { recordPath } from './paths.ts';

/** A record as the pages body lists it: its level, its name (none for plots) and its slug. */
export type RecordPage = readonly [level: number, name: string | null, slug: string];

/** The body of pagesRoute(kind): every current record's page, in list order. */
export function pagesBody(records: readonly { level: number; name?: string; slug: string }[]): string {
  const pages: RecordPage[] = records.map(({ level, name, slug }) => [level, name ?? null, slug]);
  return JSON.stringify({ pages });
}

/**
 * The wiki path of `record` (the one of its level and name) in a pages body; undefined when the
 * body lists no such record (one of a release that is no longer current has no page).
 */
export function pagePathOf(kind: KindId, body: string, record: { level: number; name?: string }): string | undefined {
  const { pages } = JSON.parse(body) as { pages: RecordPage[] };
  const name = record.name ?? null;
  const page = pages.find(([level, pageName]) => level === record.level && pageName === name);
  return page && recordPath(kind, page[2]);
}
