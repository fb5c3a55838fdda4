// Every kind of page the wiki has, one of each, and the two colour schemes, for the suites that
// open them all in a browser (a11y.test.ts, content-security.test.ts) and ask for their headers
// (static-headers.test.ts).
import { type KindId, kinds } from '../../src/schema/kinds.ts';
import { kindPath, recordPath } from '../../src/wiki/site.ts';

export interface AuditedPage {
  name: string;
  path: string;
  /** The file under src/pages that renders it. */
  source: string;
  /** For pages that finish rendering in script: what to wait for. */
  ready?: string;
}

/** A record of each kind, chosen to have neighbours on both sides where the kind allows. */
const RECORDS: Record<KindId, string> = {
  trees: 'oak-tree',
  cutters: 'knife',
  gifts: 'medium',
  plots: 'level-3',
  storages: 'crate',
  vehicles: 'van',
};

/** The first data release, which every later history keeps (releases are never rewritten). */
const FIRST_RELEASE = '2026-11-22';

/**
 * Every kind of page the wiki has. A new page goes here; the first test of a11y.test.ts fails
 * until it does.
 */
export const PAGES: AuditedPage[] = [
  { name: 'home', path: '/', source: 'index.astro' },
  ...kinds.map((kind) => ({ name: `${kind.id} index`, path: kindPath(kind.id), source: '[kind]/[...page].astro' })),
  ...kinds.map((kind) => ({
    name: `${kind.id} record`,
    path: recordPath(kind.id, RECORDS[kind.id]),
    source: '[kind]/[slug].astro',
  })),
  { name: 'search with results', path: '/search/?q=oak', source: 'search.astro', ready: '.pagefind-ui__result-link' },
  {
    name: 'search with no results',
    path: '/search/?q=qqxzz',
    source: 'search.astro',
    ready: '.pagefind-ui__message:has-text("No results")',
  },
  { name: 'API docs', path: '/docs/api/', source: 'docs/api.astro' },
  { name: 'downloads', path: '/downloads/', source: 'downloads.astro' },
  { name: 'page not found', path: '/no/such/page/', source: '404.astro' },
  { name: 'planner', path: '/planner/', source: 'planner/index.astro', ready: '#planner:not([hidden])' },
  { name: 'changes', path: '/changes/', source: 'changes/index.astro' },
  { name: 'a release', path: `/changes/${FIRST_RELEASE}/`, source: 'changes/[id].astro' },
];

/** Each colour scheme on its own screen, so that both layouts are audited as well. */
export const SCREENS = [
  { scheme: 'light', screen: 'desktop', viewport: { width: 1280, height: 900 } },
  { scheme: 'dark', screen: 'phone', viewport: { width: 390, height: 844 } },
] as const;
export type Scheme = (typeof SCREENS)[number]['scheme'];
