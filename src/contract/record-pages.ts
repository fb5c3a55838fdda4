// Where each current record's wiki page is: the build names a record's page by its content
// file (the slug), which no API record carries, so the build writes one index-only body per
// kind (pagesRoute) listing every record's level, name, slug and aliases, and the edge reads it
// to link an answer to its page and to say which alias an autocomplete choice matched (the
// Discord app). No API record carries aliases either. The body also carries the site's public
// origin when the build was given one (SITE_ORIGIN), so the app's links name it as the wiki does.
import type { KindId } from '../schema/kinds.ts';
import { recordPath } from './paths.ts';

/** A record as the pages body lists it: its level, its name (none for plots), its slug and aliases. */
export type RecordPage = readonly [level: number, name: string | null, slug: string, aliases?: readonly string[]];

/** The body of pagesRoute(kind): every current record's page, in list order. */
export function pagesBody(
  records: readonly { level: number; name?: string; slug: string; aliases?: readonly string[] }[],
  origin?: string,
): string {
  const pages: RecordPage[] = records.map(({ level, name, slug, aliases = [] }) =>
    aliases.length === 0 ? [level, name ?? null, slug] : [level, name ?? null, slug, aliases],
  );
  return JSON.stringify(origin === undefined ? { pages } : { origin, pages });
}

interface PagesBody {
  origin?: string;
  pages: RecordPage[];
}

/** The pages of a pages body, in list order. */
export const pagesOf = (body: string): readonly RecordPage[] => (JSON.parse(body) as PagesBody).pages;

/** The site's public origin a pages body carries (SITE_ORIGIN at the build); undefined without one. */
export const pagesOriginOf = (body: string): string | undefined => (JSON.parse(body) as PagesBody).origin;

/** The page of `record` (the one of its level and name) among `pages`; undefined for none. */
export function pageOf(pages: readonly RecordPage[], record: { level: number; name?: string }): RecordPage | undefined {
  const name = record.name ?? null;
  return pages.find(([level, pageName]) => level === record.level && pageName === name);
}

/**
 * The wiki path of `record` (the one of its level and name) in a pages body; undefined when the
 * body lists no such record (one of a release that is no longer current has no page).
 */
export function pagePathOf(kind: KindId, body: string, record: { level: number; name?: string }): string | undefined {
  const page = pageOf(pagesOf(body), record);
  return page && recordPath(kind, page[2]);
}
