// The built wiki in a real browser (Debian's chromium through playwright-core), served from
// dist/ on a random local port. Screenshots go to test-output/screenshots/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser, screenshotDir, skipBrowserTests, type Browser } from '../support/browser.ts';
import { startRuntime, type Runtime } from '../support/runtimes.ts';

const OAKS = ['Oak Tree', 'Northern Red Oak', 'Chestnut Oak', 'Scarlet Oak', 'White Oak', 'Silky Oak'];

describe.skipIf(skipBrowserTests())('the wiki in a browser', () => {
  // The wiki as npm start serves it: the project's own Node server.
  let server: Runtime;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    server = await startRuntime('node', { tokens: ['wiki-browser-test-token'] });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new page that records console errors, page errors and failed requests in `problems`. */
  async function open(path: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize(viewport);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${path}: console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${path}: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${path}: ${response.status()} ${response.url()}`);
    });
    await page.goto(`${server.url}${path}`);
    return page;
  }

  async function searchResultTitles(page: Page, query: string): Promise<string[]> {
    // The same index the search page uses, through Pagefind's own JavaScript API. A string,
    // so the test runner leaves the browser's dynamic import alone.
    return page.evaluate(`(async () => {
      const pagefind = await import('/pagefind/pagefind.js');
      const search = await pagefind.search(${JSON.stringify(query)});
      const data = await Promise.all(search.results.map((result) => result.data()));
      return data.map((result) => result.meta.title);
    })()`);
  }

  test('the home page renders with no console error', async () => {
    problems.length = 0;
    const page = await open('/');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/to the last dollar/);
    await expect(page.getByRole('link', { name: /Trees\s+106/ }).count()).resolves.toBe(1);
    await page.screenshot({ path: join(screenshotDir, 'home.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the search box finds Oak Tree and opens its page', async () => {
    problems.length = 0;
    const page = await open('/');
    await page.locator('#header-search').fill('oak tree');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/search\/\?q=oak\+tree/);
    const result = page.locator('.pagefind-ui__result-link', { hasText: /^Oak Tree$/ });
    await result.waitFor();
    await page.screenshot({ path: join(screenshotDir, 'search.png') });
    await result.click();
    await page.waitForURL(/\/trees\/oak-tree\/$/);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Oak Tree');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('"oak" finds all six oaks', async () => {
    const page = await open('/search/');
    const titles = await searchResultTitles(page, 'oak');
    expect(titles).toEqual(expect.arrayContaining(OAKS));
    await page.close();
  });

  test('"oak" shows Oak Tree first, then the other oaks, above pages that mention oak in passing', async () => {
    const page = await open('/search/');
    const titles = await searchResultTitles(page, 'oak');
    expect(titles[0]).toBe('Oak Tree');
    expect(titles.slice(1, OAKS.length).sort()).toEqual(OAKS.slice(1).sort());
    await page.close();
  });

  test('the search page lists Oak Tree first for "oak", as a person sees it', async () => {
    const page = await open('/search/?q=oak');
    const first = page.locator('.pagefind-ui__result-link').first();
    await first.waitFor();
    await expect(first.textContent()).resolves.toBe('Oak Tree');
    await page.close();
  });

  test('"bread knife" finds Knife by its earlier name', async () => {
    const page = await open('/search/');
    const titles = await searchResultTitles(page, 'bread knife');
    expect(titles[0]).toBe('Knife');
    await page.close();
  });

  test('a result shows what a player reads: no search keys under it', async () => {
    const page = await open('/search/?q=oak');
    const first = page.locator('.pagefind-ui__result').first();
    await first.locator('.pagefind-ui__result-excerpt').waitFor();
    await expect(first.textContent()).resolves.not.toMatch(/oaktree|Keys/i);
    await page.close();
  });

  test('a typo offers the record it was meant for: "sequioa" -> Did you mean Giant Sequoia?', async () => {
    problems.length = 0;
    const page = await open('/search/?q=sequioa');
    const offer = page.getByRole('status').filter({ hasText: 'Did you mean' });
    await expect(offer.textContent()).resolves.toBe('Did you mean Giant Sequoia?');
    await offer.getByRole('link', { name: 'Giant Sequoia' }).click();
    const result = page.locator('.pagefind-ui__result-link').first();
    await result.waitFor();
    await expect(result.textContent()).resolves.toBe('Giant Sequoia');
    expect(problems).toEqual([]);
    await page.close();
  });

  test("the kind facets count the search's results, and list no kind without one", async () => {
    const page = await open('/search/?q=oak');
    const facets = page.locator('.pagefind-ui__filter-value');
    await page.locator('.pagefind-ui__result').first().waitFor();
    await expect(facets.allInnerTexts()).resolves.toEqual(['Trees (7)']);
    await page.locator('.pagefind-ui__search-input').fill('sequioa');
    await page.getByText('No results for sequioa').waitFor();
    await expect(facets.count()).resolves.toBe(0);
    await expect(page.locator('.pagefind-ui__filter-panel').isVisible()).resolves.toBe(false);
    await page.close();
  });

  test('a kind table sorts by a column from the keyboard, and reverses', async () => {
    const page = await open('/trees/');
    const table = page.locator('table[data-sortable]');
    const columnValues = (column: number) =>
      table
        .locator(`tbody tr > :nth-child(${column + 1})`)
        .evaluateAll((cells) => cells.map((cell) => Number((cell as HTMLElement).dataset.sort)));
    const headers = await table.locator('thead th').allTextContents();
    const column = headers.findIndex((header) => header.startsWith('Log value'));
    const button = table.locator('thead th').nth(column).getByRole('button');
    await button.focus();
    await page.keyboard.press('Enter');
    const ascending = await columnValues(column);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    await expect(table.locator('thead th').nth(column).getAttribute('aria-sort')).resolves.toBe('ascending');
    await page.keyboard.press('Enter');
    const descending = await columnValues(column);
    expect(descending).toEqual([...ascending].reverse());
    await page.keyboard.press('Enter');
    await page.screenshot({ path: join(screenshotDir, 'trees-table.png') });
    await page.close();
  });

  test('a record page shows each figure as in the game and exactly', async () => {
    problems.length = 0;
    const page = await open('/trees/oak-tree/');
    const row = page.getByRole('row', { name: /^Upgrade cost/ });
    await expect(row.getByRole('cell').allTextContents()).resolves.toEqual(['$134.108M', '$134,107,523']);
    const growth = page.getByRole('row', { name: /^Growth time/ });
    await expect(growth.getByRole('cell').allTextContents()).resolves.toEqual(['7m 27s', '447 s']);
    await expect(page.getByText(/acorns/).count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: join(screenshotDir, 'tree-page.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  test("a chart's legend names its lines in plain text: filled, not outlined in the line's colour", async () => {
    const page = await open('/trees/oak-tree/');
    const legendText = page.locator('figure.chart .legend text').first();
    await expect(legendText.evaluate((text) => getComputedStyle(text).stroke)).resolves.toBe('none');
    await page.close();
  });

  test('pages fit a 360 px wide screen without sideways scrolling', async () => {
    for (const path of ['/', '/trees/', '/trees/oak-tree/', '/docs/api/']) {
      const page = await open(path, { width: 360, height: 740 });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, path).toBeLessThanOrEqual(0);
      if (path === '/trees/oak-tree/')
        await page.screenshot({ path: join(screenshotDir, 'mobile-tree-page.png'), fullPage: true });
      await page.close();
    }
  });
  test("a phone's header is two rows at 390 px: the name and search box, then the sections in a line", async () => {
    const page = await open('/trees/oak-tree/', { width: 390, height: 844 });
    const rows = await page.evaluate(() => {
      const top = (element: Element | null) => Math.round(element?.getBoundingClientRect().top ?? -1);
      const middle = (element: Element | null) => {
        const box = element?.getBoundingClientRect();
        return box ? Math.round(box.top + box.height / 2) : -1;
      };
      return {
        bar: Math.abs(middle(document.querySelector('.brand')) - middle(document.querySelector('#header-search'))) <= 2,
        sections: new Set([...document.querySelectorAll('.site-header nav li')].map(top)).size,
      };
    });
    expect(rows).toEqual({ bar: true, sections: 1 });
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Downloads' }).click();
    await page.waitForURL(/\/downloads\/$/);
    await page.close();
  });

  describe('the planner', () => {
    /** The ranking as the player sees it: "rank | tree | level | profit per hour | cost | payback" per row. */
    const ranking = (page: Page) =>
      page
        .locator('#planner-table tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) =>
            [...(row as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim()).join(' | '),
          ),
        );
    const levels = async (page: Page) => (await ranking(page)).map((row) => Number(row.split(' | ')[2]));

    async function openPlanner(): Promise<Page> {
      const page = await open('/planner/');
      await page.locator('#planner:not([hidden])').waitFor();
      return page;
    }

    test('nothing on the page moves as its script loads and shows the form (no layout shift)', async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      // Every layout shift the browser records, summed as Lighthouse's CLS sums a single burst.
      await page.addInitScript(`
        window.layoutShift = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.layoutShift += entry.value;
        }).observe({ type: 'layout-shift', buffered: true });
      `);
      await page.goto(`${server.url}/planner/`);
      await page.locator('#planner:not([hidden])').waitFor();
      // Shifts are measured as a frame is drawn: two frames after the form is shown, any are recorded.
      const shift = await page.evaluate(`new Promise((drawn) =>
        requestAnimationFrame(() => requestAnimationFrame(() => drawn(window.layoutShift))))`);
      expect(shift).toBe(0);
      await page.close();
    });

    test('it opens on a farm at its start: the one tree of level 1, no money, the first upgrade', async () => {
      const page = await openPlanner();
      await expect(page.getByLabel('Your tree level').inputValue()).resolves.toBe('1');
      await expect(page.getByLabel('Your money').inputValue()).resolves.toBe('0');
      await expect(levels(page)).resolves.toEqual([1]);
      await expect(page.locator('#planner-summary').textContent()).resolves.toMatch(/^1 tree within reach/);
      await expect(page.locator('#planner-next').textContent()).resolves.toMatch(/^Next upgrade: .* \(level 2\)/);
      await page.close();
    });

    test('changing the money changes which trees are ranked', async () => {
      problems.length = 0;
      const page = await openPlanner();
      await page.getByLabel('Your money').fill('');
      await expect(levels(page)).resolves.toHaveLength(106);
      await page.getByLabel('Your money').fill('30000');
      await expect(levels(page)).resolves.toEqual([3, 2, 1]);
      await page.getByLabel('Your money').fill('1.5M');
      const richer = await levels(page);
      expect(richer.length).toBeGreaterThan(3);
      expect(richer).toEqual([...richer].sort((a, b) => b - a));
      await page.getByLabel('Your tree level').fill('60');
      await page.getByLabel('Your money').fill('0');
      await expect(levels(page)).resolves.toEqual(Array.from({ length: 60 }, (_unused, index) => 60 - index));
      await expect(page.locator('#planner-next').textContent()).resolves.toMatch(/^Next upgrade: .* \(level 61\)/);
      await page.screenshot({ path: join(screenshotDir, 'planner.png') });
      expect(problems).toEqual([]);
      await page.close();
    });

    test('changing the plot changes every profit per hour and payback in the ranking', async () => {
      problems.length = 0;
      const page = await openPlanner();
      await page.getByLabel('Your money').fill('30000');
      const normal = await ranking(page);
      await page.getByLabel('Your plot').selectOption({ label: 'Level 8 plot (114%)' });
      const fast = await ranking(page);
      expect(fast).toHaveLength(normal.length);
      for (const [index, row] of fast.entries()) {
        const [, tree, , perHour] = row.split(' | ');
        const [, normalTree, , normalPerHour] = (normal[index] ?? '').split(' | ');
        expect({ tree, faster: perHour !== normalPerHour }).toEqual({ tree: normalTree, faster: true });
      }
      await expect(page.locator('#planner-caption-note').textContent()).resolves.toMatch(/level 8 plot \(114%\)/);
      expect(problems).toEqual([]);
      await page.close();
    });

    test('keyboard only: Tab to each input; arrows and typing recalculate', async () => {
      const page = await openPlanner();
      await page.getByLabel('Your tree level').focus();
      await page.keyboard.press('ArrowUp');
      await expect(page.locator('#planner-level-tree').textContent()).resolves.toBe('American Arborvitae');
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('planner-plot');
      await page.keyboard.press('ArrowDown');
      await expect(page.locator('#planner-caption-note').textContent()).resolves.toMatch(/level 2 plot \(102%\)/);
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('planner-money');
      await page.keyboard.type('13224');
      await expect(levels(page)).resolves.toEqual([3, 2, 1]);
      await page.close();
    });

    test('what a player typed wrong is named, and the last ranking stays', async () => {
      const page = await openPlanner();
      await page.getByLabel('Your money').fill('30000');
      await page.getByLabel('Your money').fill('lots');
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Money is a number of dollars/);
      await expect(page.getByLabel('Your money').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(levels(page)).resolves.toEqual([3, 2, 1]);
      await page.close();
    });

    test('without JavaScript: the opening plan as the script shows it, and no form', async () => {
      const page = await browser.context.newPage();
      await page.route('**/*.js', (route) => route.abort());
      await page.goto(`${server.url}/planner/`);
      await expect(levels(page)).resolves.toEqual([1]);
      await expect(page.locator('#planner').isVisible()).resolves.toBe(false);
      await expect(page.locator('#planner-caption-note').textContent()).resolves.toBe(
        'On the level 1 plot (100%), from level 1, with $0.',
      );
      await page.close();
    });
  });
});
