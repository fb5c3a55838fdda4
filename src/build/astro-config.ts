// The Astro configuration of the site, in one place: astro.config.mjs (for `astro build`,
// `astro sync`, `astro dev`) and site.ts (`npm run build`, which hands the integration the data
// it has already loaded) both use it.
import sitemap from '@astrojs/sitemap';
import type { AstroUserConfig } from 'astro';
import { SITEMAP_NAME } from '../contract/build-files.ts';
import treefarmData, { type TreefarmDataOptions } from './integration.ts';
import { buildSettings } from './settings.ts';

// The wiki is static; the integration adds the prebuilt API, the manifest, the search index
// and the offline bundles to the same output (see integration.ts). `site` is SITE_ORIGIN, or
// nothing: the pages then write no absolute URL and there is no sitemap (it needs one).
export function siteConfig(options: TreefarmDataOptions = {}): AstroUserConfig {
  const site = buildSettings().siteOrigin;
  return {
    ...(site === undefined ? {} : { site }),
    output: 'static',
    // Astro 7's default ('jsx') drops a line break between a word and the element or {value} after
    // it, so the wiki's wrapped prose read "Ask theplanner"; `true` collapses white space without
    // losing any that separates words (test/wiki/words-apart.test.ts).
    compressHTML: true,
    trailingSlash: 'ignore',
    // No inline script or stylesheet, however small (Astro inlines those under Vite's
    // assetsInlineLimit, 4 KiB), so the Content-Security-Policy of public/_headers holds without
    // 'unsafe-inline': each is a file under /_astro/.
    build: { format: 'directory', inlineStylesheets: 'never' },
    vite: { build: { assetsInlineLimit: 0 } },
    // Code in rendered Markdown (the API page's contract) as plain <pre><code>, like the pages' own:
    // Shiki's highlighting is inline style attributes, which that policy refuses too.
    markdown: { syntaxHighlight: false },
    integrations: [
      treefarmData(options),
      // Pages only: the feeds, the planner's data and the other files are no pages to index.
      ...(site === undefined ? [] : [sitemap({ filenameBase: SITEMAP_NAME, filter: (page) => page.endsWith('/') })]),
    ],
  };
}
