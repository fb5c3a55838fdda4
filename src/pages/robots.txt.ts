// /robots.txt: every page may be crawled, the API (a token's answers) is no page to crawl, and
// with the site's public origin set (SITE_ORIGIN) the sitemap is named; without it, no sitemap
// (one needs absolute URLs) and no address is made up.
import type { APIRoute } from 'astro';
import { SITEMAP_INDEX_FILE } from '../contract/build-files.ts';
import { API_DIR } from '../contract/paths.ts';

export const GET: APIRoute = ({ site }) => {
  const lines = ['User-agent: *', `Disallow: /${API_DIR}/`];
  if (site) lines.push('', `Sitemap: ${new URL(SITEMAP_INDEX_FILE, site.origin).href}`);
  return new Response(`${lines.join('\n')}\n`, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
