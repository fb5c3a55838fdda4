// Links that unfurl where players paste them, and a map for search engines: every page kind
// carries the OpenGraph tags, a Twitter card and theme-color; with the site's public origin set
// (SITE_ORIGIN, built here into a temp folder) each page has its canonical link and og:url, the
// sitemap lists every page and robots.txt names it; without it (dist/, as `npm test` builds it)
// no absolute URL is made up anywhere. Every record and release page names its card (og:image,
// summary_large_image), and the second build, rendering every card afresh, makes the same bytes.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { staleReason } from '../../src/build/freshness.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { ASSETS_IGNORE_FILE, BUILD_SETTINGS_FILE, SITEMAP_INDEX_FILE } from '../../src/contract/build-files.ts';
import { loadBuildData } from '../../src/build/build-data.ts';
import { loadContent } from '../../src/build/content.ts';
import {
  CARD_HEIGHT,
  CARD_TYPE,
  CARD_WIDTH,
  kindCardPath,
  recordCardPath,
  releaseCardPath,
} from '../../src/contract/cards.ts';
import type { KindId } from '../../src/schema/kinds.ts';
import { recordPage } from '../../src/wiki/model.ts';
import { SITE_NAME, THEME_COLORS } from '../../src/wiki/site.ts';
import type { ContentOf, WikiEntry } from '../../src/wiki/views.ts';
import { tempDir } from '../support/builds.ts';
import { buildInChild } from '../support/child-build.ts';
import { builtPages } from '../support/built-pages.ts';
import { distDir } from '../support/runtimes.ts';
import { PAGES } from '../support/wiki-pages.ts';

const ORIGIN = 'https://wiki.example.org';
const NOT_FOUND = PAGES.find((page) => page.source === '404.astro');

/** The HTML file of dist/ a page of PAGES is built as (the 404 page is one file for every missing path). */
const fileOf = (path: string) => (path === NOT_FOUND?.path ? '404.html' : join(path.split('?')[0] ?? '', 'index.html'));

/** The head's <meta property|name=... content=...> values, by property or name (repeats in order). */
function metaOf(html: string): Map<string, string[]> {
  const head = html.split('</head>')[0] ?? '';
  const meta = new Map<string, string[]>();
  for (const [tag = ''] of head.matchAll(/<meta\s[^>]*>/g)) {
    const key = /\s(?:property|name)="([^"]+)"/.exec(tag)?.[1];
    const content = /\scontent="([^"]*)"/.exec(tag)?.[1];
    if (key && content !== undefined) meta.set(key, [...(meta.get(key) ?? []), content]);
  }
  return meta;
}
/** The card a page names (src/contract/cards.ts): every record's, kind listing's and release's, and no other page's. */
function cardOf(path: string): string | undefined {
  const release = /^\/changes\/([^/]+)\/$/.exec(path)?.[1];
  if (release !== undefined && release !== 'page') return releaseCardPath(release);
  const listing = /^\/([a-z]+)\/(?:page\/\d+\/)?$/.exec(path)?.[1];
  if (listing !== undefined && listing in contentData.content.entries) return kindCardPath(listing as KindId);
  const [, kind, slug] = /^\/([a-z]+)\/([^/]+)\/$/.exec(path) ?? [];
  const position = contentData.content.entries[kind as KindId]?.findIndex((entry) => entry.slug === slug) ?? -1;
  return position < 0 ? undefined : recordCardPath(kind as KindId, slug ?? '', position);
}
const contentData = loadBuildData(join(projectDir, 'content'));
const canonicalOf = (html: string) => /<link rel="canonical" href="([^"]+)"/.exec(html)?.[1];
const decode = (text: string) => text.replaceAll('&amp;', '&').replaceAll('&#36;', '$').replaceAll('&#39;', "'");

describe.each([
  ['without SITE_ORIGIN (dist/)', () => distDir],
  ['with SITE_ORIGIN', () => withOrigin],
])('%s', (_name, dirOf) => {
  test.for(PAGES)(
    '$name carries og:title, og:description, og:site_name, a Twitter card and theme-color',
    ({ path }) => {
      const html = readFileSync(join(dirOf(), fileOf(path)), 'utf8');
      const meta = metaOf(html);
      const description = meta.get('description')?.[0];
      expect(description).toBeTruthy();
      expect(meta.get('og:title')?.[0]).toBeTruthy();
      expect(meta.get('og:description')).toEqual([description]);
      expect(meta.get('og:site_name')).toEqual([SITE_NAME]);
      expect(meta.get('og:type')).toEqual(['website']);
      expect(meta.get('twitter:card')).toEqual([cardOf(path) ? 'summary_large_image' : 'summary']);
      expect(meta.get('theme-color')).toEqual(THEME_COLORS.map(({ color }) => color));
    },
  );
});

describe.each([
  ['without SITE_ORIGIN (dist/), by its path', () => distDir, ''],
  ['with SITE_ORIGIN, by its absolute URL', () => withOrigin, ORIGIN],
])('%s', (_name, dirOf, origin) => {
  test('every record, kind and release page names its card in og:image, with its type, size and what it shows', () => {
    const pages = [...builtPages(dirOf())].filter(([path]) => cardOf(path) !== undefined);
    const records = Object.values(contentData.content.entries).reduce((sum, list) => sum + list.length, 0);
    // Each kind's listing is one page in the real content.
    const listings = Object.keys(contentData.content.entries).length;
    expect(pages).toHaveLength(records + listings + contentData.releases.length);
    for (const [path, html] of pages) {
      const meta = metaOf(html);
      const card = `${origin}${cardOf(path)}`;
      expect({ path, image: meta.get('og:image') }).toEqual({ path, image: [card] });
      expect(meta.get('og:image:type')).toEqual([CARD_TYPE]);
      expect(meta.get('og:image:width')).toEqual([String(CARD_WIDTH)]);
      expect(meta.get('og:image:height')).toEqual([String(CARD_HEIGHT)]);
      expect(meta.get('og:image:alt')?.[0]).toMatch(/^Card of /);
      expect(existsSync(join(dirOf(), cardOf(path) ?? ''))).toBe(true);
    }
  });
});

test("a record card's og:image:alt names the record and its figures as the card shows them", () => {
  const alt = metaOf(readFileSync(join(distDir, 'trees/oak-tree/index.html'), 'utf8')).get('og:image:alt')?.[0];
  expect(decode(alt ?? '')).toMatch(/^Card of Oak Tree, level \d+ tree: harvest value \$[\d.]+[KMB]?, growth time /);
});

test('a second build, rendering every card afresh (an empty CARD_CACHE_DIR), makes the same bytes', () => {
  const cards = readdirSync(join(distDir, 'cards'), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.png'),
  );
  expect(cards.length).toBeGreaterThan(100);
  for (const card of cards)
    expect({
      card,
      same: readFileSync(join(withOrigin, 'cards', card)).equals(readFileSync(join(distDir, 'cards', card))),
    }).toEqual({ card, same: true });
});

test("theme-color is the wiki's accent colour in each scheme", () => {
  const css = readFileSync(join(projectDir, 'src/wiki/wiki.css'), 'utf8');
  const accents = [...css.matchAll(/--accent:\s*(#[0-9a-f]+);/gi)].map((match) => match[1]);
  expect(accents).toEqual(THEME_COLORS.map(({ color }) => color));
});

test("a record's og:description is its key figures in words", () => {
  const content = loadContent(join(projectDir, 'content'));
  const entries = content.entries.cutters.map((entry) => ({
    slug: entry.slug,
    data: entry.data as ContentOf<'cutters'>,
  })) satisfies WikiEntry<'cutters'>[];
  const index = entries.findIndex((entry) => entry.slug === 'knife');
  const { summary, figures } = recordPage('cutters', entries, index);
  const meta = metaOf(readFileSync(join(distDir, 'cutters/knife/index.html'), 'utf8'));
  expect(decode(meta.get('og:description')?.[0] ?? '')).toBe(summary);
  for (const figure of figures) expect(summary).toContain(figure.shown);
});

describe('without SITE_ORIGIN, no absolute URL is made up', () => {
  test('no page has a canonical link or og:url', () => {
    for (const [path, html] of builtPages()) {
      expect({ path, canonical: canonicalOf(html) }).toEqual({ path, canonical: undefined });
      expect({ path, url: metaOf(html).get('og:url') }).toEqual({ path, url: undefined });
    }
  });

  test('there is no sitemap, and robots.txt names none', () => {
    expect(existsSync(join(distDir, SITEMAP_INDEX_FILE))).toBe(false);
    const robots = readFileSync(join(distDir, 'robots.txt'), 'utf8');
    expect(robots).toBe('User-agent: *\nDisallow: /api/\n');
  });

  test("the feeds' links are relative, and Atom's ids the data set's own names", () => {
    const atom = readFileSync(join(distDir, 'changes/atom.xml'), 'utf8');
    const json = readFileSync(join(distDir, 'changes/feed.json'), 'utf8');
    const namespaces = ['http://www.w3.org/2005/Atom', 'https://jsonfeed.org/version/1.1'];
    for (const text of [atom, json])
      expect(
        [...text.matchAll(/https?:\/\/[^"'<\s\\]*/g)].map(([url]) => url).filter((url) => !namespaces.includes(url)),
      ).toEqual([]);
    for (const [, id] of atom.matchAll(/<id>([^<]*)<\/id>/g)) expect(id).toMatch(/^urn:treefarm-data:\//);
  });
});

let workDir: string;
let withOrigin: string;
beforeAll(async () => {
  workDir = tempDir('link-previews');
  withOrigin = join(workDir, 'dist');
  // Every card rendered afresh, none read from the cache that made dist/'s.
  const cardCache = join(workDir, 'card-cache');
  const { status, output } = await buildInChild(withOrigin, { SITE_ORIGIN: ORIGIN, CARD_CACHE_DIR: cardCache });
  if (status !== 0) throw new Error(`the build exited with ${status}:\n${output}`);
}, 300_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('with SITE_ORIGIN', () => {
  test.for(PAGES.filter((page) => page !== NOT_FOUND))(
    '$name has its canonical link and og:url on the origin',
    ({ path }) => {
      const html = readFileSync(join(withOrigin, fileOf(path)), 'utf8');
      const own = new URL(path.split('?')[0] ?? '', ORIGIN).href;
      expect(canonicalOf(html)).toBe(own);
      expect(metaOf(html).get('og:url')).toEqual([own]);
    },
  );

  test('the build records SITE_ORIGIN, unpublished: npm start builds again when it changes, not else', () => {
    expect(JSON.parse(readFileSync(join(withOrigin, BUILD_SETTINGS_FILE), 'utf8'))).toEqual({
      SITE_ORIGIN: ORIGIN,
      TREEFARM_DATA_DIR: null,
    });
    expect(readFileSync(join(withOrigin, ASSETS_IGNORE_FILE), 'utf8').split('\n')).toContain(BUILD_SETTINGS_FILE);
    expect(staleReason(projectDir, withOrigin, { siteOrigin: ORIGIN, dataDir: undefined })).toBeUndefined();
    expect(staleReason(projectDir, withOrigin, { siteOrigin: undefined, dataDir: undefined })).toBe(
      `SITE_ORIGIN is now unset; the last build was made with "${ORIGIN}"`,
    );
    expect(staleReason(projectDir, distDir, { siteOrigin: ORIGIN, dataDir: undefined })).toBe(
      `SITE_ORIGIN is now "${ORIGIN}"; the last build was made without it`,
    );
  });

  test('the page not found, served at every missing address, claims none', () => {
    const html = readFileSync(join(withOrigin, '404.html'), 'utf8');
    expect(canonicalOf(html)).toBeUndefined();
    expect(metaOf(html).get('og:url')).toBeUndefined();
  });

  test('robots.txt names the sitemap, and the sitemap lists every page but the 404, each once', () => {
    const robots = readFileSync(join(withOrigin, 'robots.txt'), 'utf8');
    expect(robots).toContain(`\nSitemap: ${ORIGIN}/${SITEMAP_INDEX_FILE}\n`);
    const parser = new XMLParser({ isArray: (name) => name === 'sitemap' || name === 'url' });
    const index = parser.parse(readFileSync(join(withOrigin, SITEMAP_INDEX_FILE), 'utf8')) as {
      sitemapindex: { sitemap: { loc: string }[] };
    };
    const listed = index.sitemapindex.sitemap.flatMap(({ loc }) => {
      expect(loc.startsWith(`${ORIGIN}/`)).toBe(true);
      const part = parser.parse(readFileSync(join(withOrigin, new URL(loc).pathname), 'utf8')) as {
        urlset: { url: { loc: string }[] };
      };
      return part.urlset.url.map((url) => url.loc);
    });
    const pages = [...builtPages(withOrigin).keys()].filter((path) => path !== '/404.html');
    expect(listed.toSorted()).toEqual(pages.map((path) => `${ORIGIN}${path}`).toSorted());
  });
});
