// The search page's script: Pagefind's UI (loaded before it by /pagefind/pagefind-ui.js) in the
// page's #search box, searching at once for the ?q= the site's search boxes send, and "Did you
// mean" under it when a search finds nothing (search-suggest.ts). A file, not an inline script,
// so the site's Content-Security-Policy needs no 'unsafe-inline' (public/_headers).
import { didYouMean } from './search-suggest.ts';

/** The part of Pagefind's UI the page uses; pagefind-ui.js defines it as a global. */
interface PagefindUi {
  triggerSearch(query: string): void;
}
declare const PagefindUI: new (options: Record<string, unknown>) => PagefindUi;

/** The part of Pagefind's search API the page uses: the same module instance the UI imports. */
interface Pagefind {
  filters(): Promise<unknown>;
  search(term: string): Promise<{ results: unknown[] }>;
}
/** A result as the UI shows it: its metadata other than title and image become tags under it. */
interface ResultData {
  meta: Record<string, string | undefined>;
}

const PAGEFIND_MODULE = '/pagefind/pagefind.js';
const readJson = async (path: string): Promise<unknown> => (await fetch(path)).json();

/** Says "Did you mean …?" under the results when `term` finds nothing, and nothing otherwise. */
async function offerNearest(pagefind: Pagefind, term: string, box: HTMLElement): Promise<void> {
  const found = term.trim() === '' || (await pagefind.search(term)).results.length > 0;
  const names = found ? [] : await didYouMean(term, readJson);
  if (box.dataset.term !== term) return; // a later search has taken over
  box.replaceChildren();
  if (names.length === 0) return;
  box.append('Did you mean ');
  names.forEach((name, index) => {
    if (index > 0) box.append(index === names.length - 1 ? ' or ' : ', ');
    const link = document.createElement('a');
    link.href = `?q=${encodeURIComponent(name)}`;
    link.textContent = name;
    box.append(link);
  });
  box.append('?');
}

async function start(): Promise<void> {
  const pagefind = (await import(/* @vite-ignore */ PAGEFIND_MODULE)) as Pagefind;
  // Loaded before the first search, so its facet counts are its results' (the UI otherwise keeps
  // the whole site's counts for a search made before the filters were loaded).
  await pagefind.filters();
  const box = document.getElementById('search-nearest');
  const ui = new PagefindUI({
    element: '#search',
    showSubResults: false,
    showImages: false,
    autofocus: true,
    // A kind with no result is no choice: no "Gifts (0)".
    showEmptyFilters: false,
    processTerm: (term: string) => {
      if (box) {
        box.dataset.term = term;
        void offerNearest(pagefind, term, box);
      }
      return term;
    },
    // The search keys are metadata to be searched, not a tag to show ("Keys: oaktree").
    processResult: (result: ResultData) => ({
      ...result,
      meta: Object.fromEntries(Object.entries(result.meta).filter(([name]) => name !== 'keys')),
    }),
  });
  // Pagefind names its box only by a title; a real label for screen readers.
  document.querySelector('#search input')?.setAttribute('aria-label', 'Search the wiki');
  const query = new URLSearchParams(location.search).get('q');
  if (query) ui.triggerSearch(query);
}

void start();
