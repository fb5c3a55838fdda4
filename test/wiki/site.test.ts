// The built wiki in dist/, read as files: its pages, its links, its markup rules.
import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { toolNames } from '../../src/apps/mcp/tools.ts';
import { kinds } from '../../src/schema/kinds.ts';
import { builtPages } from '../support/built-pages.ts';
import { distDir } from '../support/runtimes.ts';

/** Each built page by its URL path ("/trees/oak-tree/"), with its HTML. */
const pages = builtPages();
const content = loadContent(join(projectDir, 'content'));
const recordPaths = new Set(
  kinds.flatMap((kind) => content.entries[kind.id].map((entry) => `/${kind.id}/${entry.slug}/`)),
);

/** The file in dist/ that a site path names, if any. */
function resolvesToFile(path: string): boolean {
  const target = join(distDir, decodeURIComponent(path));
  if (path.endsWith('/')) return existsSync(join(target, 'index.html'));
  return (existsSync(target) && statSync(target).isFile()) || existsSync(join(target, 'index.html'));
}

function internalLinks(pagePath: string, html: string): string[] {
  const links: string[] = [];
  for (const [, url = ''] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
    if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(url)) continue;
    const path = url.replace(/[?#].*$/, '');
    links.push(path.startsWith('/') ? path : posix.join(pagePath, path));
  }
  return links;
}

/** The text of the page's first h1, with the entities Astro writes decoded. */
const heading = (html: string | undefined) =>
  /<h1[^>]*>([^<]*)<\/h1>/
    .exec(html ?? '')?.[1]
    ?.replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

describe('pages', () => {
  test('the home page and one page per kind, each under its heading', () => {
    expect(heading(pages.get('/'))).toBe('Every tree, cutter and vehicle of your farm, to the last dollar');
    const headings = {
      trees: 'Trees',
      cutters: 'Cutters',
      gifts: 'Gifts',
      plots: 'Plots',
      storages: 'Storages',
      vehicles: 'Vehicles',
    };
    for (const [kind, title] of Object.entries(headings))
      expect({ kind, h1: heading(pages.get(`/${kind}/`)) }).toEqual({ kind, h1: title });
  });

  test('every record has its page, headed by its name (a plot by its level, a gift as "<Name> gift")', () => {
    for (const kind of kinds) {
      for (const { slug, data } of content.entries[kind.id]) {
        const { name = '', level } = data as { name?: string; level: number };
        const expected =
          kind.id === 'plots'
            ? `Level ${level} plot`
            : kind.id === 'gifts'
              ? `${name.charAt(0).toUpperCase()}${name.slice(1)} gift`
              : name;
        const path = `/${kind.id}/${slug}/`;
        expect({ path, h1: heading(pages.get(path)) }).toEqual({ path, h1: expected });
      }
    }
  });

  test('the API docs are at /docs/api/, outside the token-protected /api/', () => {
    expect(pages.get('/docs/api/')).toContain('Authorization: Bearer $TOKEN');
    expect([...pages.keys()].filter((path) => path.startsWith('/api/'))).toEqual([]);
  });

  test('the API docs describe the suggestion endpoint, its rules and an example', () => {
    const page = pages.get('/docs/api/') ?? '';
    for (const text of [
      '/api/trees/suggest?search=oak',
      'up to 25 choices',
      'sequioa',
      'Suggestions for the requested tree.',
    ])
      expect(page).toContain(text);
  });

  test('the API docs describe POST /mcp: every MCP tool with its arguments, the token, the offline command', () => {
    const page = pages.get('/docs/api/') ?? '';
    const section = /<section aria-labelledby="mcp">[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    const listed = [...section.matchAll(/<th scope="row"[^>]*><code[^>]*>([a-z_]+)\(/g)].map((match) => match[1]);
    expect(listed).toEqual(toolNames);
    for (const text of [
      'find_record(kind, query, release?, limit?, cursor?)',
      'POST /mcp',
      'Authorization: Bearer &lt;token&gt;',
      'treefarm mcp --bundle &lt;file&gt;',
      'mcpServers',
    ])
      expect(section).toContain(text);
  });

  test('plots are at /plots/level-N/, one per level', () => {
    expect([...recordPaths].filter((path) => path.startsWith('/plots/'))).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((level) => `/plots/level-${level}/`),
    );
  });

  test('each kind page links to the page of every record of its kind, in list order', () => {
    for (const kind of kinds) {
      const own = new RegExp(`href="(/${kind.id}/[^"/]+/)"`, 'g');
      const linked = [...new Set([...(pages.get(`/${kind.id}/`) ?? '').matchAll(own)].map((match) => match[1]))];
      expect({ kind: kind.id, linked }).toEqual({
        kind: kind.id,
        linked: content.entries[kind.id].map((entry) => `/${kind.id}/${entry.slug}/`),
      });
    }
  });
});

describe('links', () => {
  test('every internal link and source of every page resolves to a file in dist/', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const [pagePath, html] of pages) {
      for (const link of internalLinks(pagePath, html)) {
        checked += 1;
        if (!resolvesToFile(link)) broken.push(`${pagePath} -> ${link}`);
      }
    }
    expect(broken).toEqual([]);
    // The header alone links to nine pages: a walk that finds fewer looked at nothing.
    expect(checked).toBeGreaterThan(pages.size * 9);
  });

  test("every record is linked from its kind's pages, read from the kind's page on by Next", () => {
    for (const kind of kinds) {
      const linked = new Set<string>();
      let next: string | undefined = `/${kind.id}/`;
      for (let hops = 0; next && hops < pages.size; hops++) {
        const html: string = pages.get(next) ?? '';
        for (const [, href = ''] of html.matchAll(/<th scope="row"[^>]*><a href="([^"]+)"/g)) linked.add(href);
        next = /<a href="([^"]+)" rel="next">Next/.exec(html)?.[1];
      }
      const expected = content.entries[kind.id].map((entry) => `/${kind.id}/${entry.slug}/`);
      expect([...linked].sort(), kind.id).toEqual(expected.sort());
    }
  });

  test('every tree page and the home page point to the planner in their text, besides the nav', () => {
    const main = (path: string) => /<main[\s\S]*<\/main>/.exec(pages.get(path) ?? '')?.[0] ?? '';
    for (const entry of content.entries.trees)
      expect(main(`/trees/${entry.slug}/`), entry.slug).toContain('href="/planner/"');
    expect(main('/')).toContain('href="/planner/"');
  });

  test('every page links to the home page, each kind, the planner, the API docs and the downloads', () => {
    for (const [path, html] of pages) {
      for (const href of ['/', ...kinds.map((kind) => `/${kind.id}/`), '/planner/', '/docs/api/', '/downloads/']) {
        expect(html, `${path} links to ${href}`).toContain(`href="${href}"`);
      }
    }
  });
});

describe('markup', () => {
  test('every page carries the search box', () => {
    for (const [path, html] of pages) expect(html, path).toMatch(/<form[^>]*role="search"[^>]*action="\/search\/"/);
  });

  test('only record pages are indexed for search', () => {
    for (const [path, html] of pages) expect(html.includes('data-pagefind-body'), path).toBe(recordPaths.has(path));
  });

  test("no script but Pagefind's and the site's own, each where it belongs, and every one a file", () => {
    for (const [path, html] of pages) {
      for (const [script = ''] of html.matchAll(/<script\b[^>]*>[\s\S]*?<\/script>/g)) {
        // Astro names a script it builds by the file that holds it.
        const file =
          /^<script (?:type="module" )?src="\/(pagefind\/pagefind-ui|_astro\/[\w.]+?\.astro)[^"]*"><\/script>$/.exec(
            script,
          )?.[1];
        const allowed =
          ((file === 'pagefind/pagefind-ui' || file === '_astro/search.astro') && path === '/search/') ||
          (file === '_astro/KindTable.astro' && html.includes('data-sortable')) ||
          (file === '_astro/index.astro' && path === '/planner/');
        expect(allowed, `${path}: ${script.slice(0, 120)}`).toBe(true);
      }
    }
  });

  test('no inline style or event handler: the Content-Security-Policy allows neither', () => {
    for (const [path, html] of pages) {
      expect(html, path).not.toMatch(/<style\b/);
      expect(html, path).not.toMatch(/<[^>]+\sstyle=/);
      expect(html, path).not.toMatch(/<[^>]+\son[a-z]+=/);
      expect(html, path).not.toMatch(/\shref="javascript:/i);
    }
  });

  test('every table has a caption and every header cell a scope', () => {
    for (const [path, html] of pages) {
      expect(html.match(/<caption\b/g)?.length ?? 0, path).toBe(html.match(/<table\b/g)?.length ?? 0);
      for (const [header = ''] of html.matchAll(/<th\b[^>]*>/g)) expect(header, path).toMatch(/scope="(col|row)"/);
    }
  });

  test('every chart has a title, a description and a caption', () => {
    for (const [path, html] of pages) {
      for (const [figure = ''] of html.matchAll(/<figure class="chart[\s\S]*?<\/figure>/g)) {
        expect(figure, path).toMatch(/<figcaption>[^<]*<strong>/);
        expect(figure, path).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="[^"]+"/);
        expect(figure, path).toMatch(/<title id="[^"]+">[^<]+<\/title>\s*<desc id="[^"]+">[^<]+<\/desc>/);
      }
    }
  });

  test('every page declares its language, a title and a description', () => {
    for (const [path, html] of pages) {
      expect(html, path).toMatch(/<html lang="en"/);
      expect(html, path).toMatch(/<title>[^<]+<\/title>/);
      expect(html, path).toMatch(/<meta name="description" content="[^"]+"/);
    }
  });
});
