// The search page's script: Pagefind's UI (loaded before it by /pagefind/pagefind-ui.js) in the
// page's #search box, searching at once for the ?q= the site's search boxes send. A file, not
// an inline script, so the site's Content-Security-Policy needs no 'unsafe-inline' (public/_headers).

/** The part of Pagefind's UI the page uses; pagefind-ui.js defines it as a global. */
interface PagefindUi {
  triggerSearch(query: string): void;
}
declare const PagefindUI: new (options: Record<string, unknown>) => PagefindUi;

const ui = new PagefindUI({ element: '#search', showSubResults: false, showImages: false, autofocus: true });
// Pagefind names its box only by a title; a real label for screen readers.
document.querySelector('#search input')?.setAttribute('aria-label', 'Search the wiki');
const query = new URLSearchParams(location.search).get('q');
if (query) ui.triggerSearch(query);
