// The wiki's names and addresses: one place for every URL the pages link to.
import { CHANGES_PATH, PLANNER_PATH } from '../contract/paths.ts';
import { kindIds, kindTitle, type KindId } from '../schema/kind-ids.ts';

// The wiki's pages take every name and address from here, kind headings included.
export { kindTitle };

export const SITE_NAME = 'Tree Farm Wiki';

/** The browser's colour around the wiki (theme-color): wiki.css's --accent in each colour scheme. */
export const THEME_COLORS = [
  { scheme: 'light', color: '#2e7d32' },
  { scheme: 'dark', color: '#7cc47f' },
] as const;

export const kindPath = (kind: KindId) => `/${kind}/`;
/** Page `number` of a kind's listing: the first is the kind's page itself. */
export const kindPagePath = (kind: KindId, number: number) =>
  number <= 1 ? kindPath(kind) : `${kindPath(kind)}page/${number}/`;
/** The id of a kind's table on its index page: the charts link to it for every value. */
export const kindTableId = (kind: KindId) => `${kind}-table`;
export const SEARCH_PATH = '/search/';
export const API_DOCS_PATH = '/docs/api/';
export const DOWNLOADS_PATH = '/downloads/';
/** The feeds of the data releases, linked from every page's head. */
export const ATOM_FEED_PATH = `${CHANGES_PATH}atom.xml`;
export const JSON_FEED_PATH = `${CHANGES_PATH}feed.json`;
/** Where the docs' curl examples send requests: the local server of `npm start`. */
export { LOCAL_ORIGIN } from '../contract/paths.ts';
// The Discord app links to the same pages (src/apps/discord): their addresses are the contract's.
export { CHANGES_PATH, PLANNER_PATH, recordPath, releasePath } from '../contract/paths.ts';

export interface NavItem {
  label: string;
  href: string;
}

export const navItems: NavItem[] = [
  { label: 'Home', href: '/' },
  ...kindIds.map((kind) => ({ label: kindTitle(kind), href: kindPath(kind) })),
  { label: 'Planner', href: PLANNER_PATH },
  { label: 'Changes', href: CHANGES_PATH },
  { label: 'API', href: API_DOCS_PATH },
  { label: 'Downloads', href: DOWNLOADS_PATH },
];

/** Whether a nav item is the section of the page at `pathname`. */
export function isCurrentSection(item: NavItem, pathname: string): boolean {
  const path = pathname.endsWith('/') ? pathname : `${pathname}/`;
  return item.href === '/' ? path === '/' : path.startsWith(item.href);
}
