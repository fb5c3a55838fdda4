// Accessibility of the built wiki in a real browser: axe-core (WCAG 2.2 AA and best practice)
// and a visible focus ring on every page kind in both colour schemes; then what axe cannot
// see: the skip link, sorting from the keyboard, charts in words, reduced motion. One
// browser; one tab per colour scheme (light on a desktop, dark on a phone), reused from page
// to page.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { axeViolations, focusRings, ringProblem } from '../support/a11y.ts';
import { launchBrowser, skipBrowserTests, type Browser } from '../support/browser.ts';
import { PAGES, SCREENS, type Scheme } from '../support/wiki-pages.ts';
import { startRuntime, type Runtime } from '../support/runtimes.ts';

/** Enough Tab presses to reach any control above a long kind table. */
const MAX_FOCUS_STOPS = 40;

const pagesDir = join(projectDir, 'src/pages');

test('every page of src/pages is in the audit', () => {
  const sources = readdirSync(pagesDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.astro'),
  );
  expect(new Set(PAGES.map((page) => page.source))).toEqual(new Set(sources));
});

describe.skipIf(skipBrowserTests())('accessibility in a browser', () => {
  let server: Runtime;
  let browser: Browser;
  const tabs = new Map<Scheme, Page>();

  beforeAll(async () => {
    server = await startRuntime('node', { tokens: ['a11y-test-token'] });
    browser = await launchBrowser();
    for (const { scheme, viewport } of SCREENS) {
      const page = await browser.context.newPage();
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'no-preference' });
      tabs.set(scheme, page);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function visit(scheme: Scheme, path: string, ready?: string): Promise<Page> {
    const page = tabs.get(scheme);
    if (!page) throw new Error(`no ${scheme} tab`);
    await page.goto(`${server.url}${path}`);
    if (ready) await page.locator(ready).first().waitFor();
    return page;
  }

  describe.for(SCREENS)('$scheme colour scheme on a $screen', ({ scheme }) => {
    test.for(PAGES)('$name: no axe violation, and every focus ring is visible', async (audited) => {
      const page = await visit(scheme, audited.path, audited.ready);
      expect(await axeViolations(page)).toEqual([]);
      expect((await focusRings(page)).flatMap((ring) => ringProblem(ring) ?? [])).toEqual([]);
    });
  });

  /** Presses Tab until the focused element matches `selector` and has `name` as its text. */
  async function tabTo(page: Page, selector: string, name: string): Promise<number> {
    for (let stop = 1; stop <= MAX_FOCUS_STOPS; stop++) {
      await page.keyboard.press('Tab');
      const reached = await page.evaluate(
        (target) =>
          document.activeElement?.matches(target.selector) && document.activeElement.textContent === target.name,
        { selector, name },
      );
      if (reached) return stop;
    }
    throw new Error(`Tab never reached ${selector} "${name}"`);
  }

  test('the first Tab shows the skip link, and it moves focus to the main content', async () => {
    const page = await visit('light', '/trees/oak-tree/');
    await expect(tabTo(page, 'a', 'Skip to content')).resolves.toBe(1);
    const box = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
    expect(box?.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.closest('main')?.id)).resolves.toBe('main');
  });

  test('Tab reaches the sort buttons; Enter and Space sort, aria-sort says how, and axe still passes', async () => {
    const page = await visit('light', '/trees/');
    const table = page.locator('table[data-sortable]');
    const sortedHeaders = () =>
      table
        .locator('thead th[aria-sort]')
        .evaluateAll((cells) => cells.map((cell) => `${cell.textContent} ${cell.getAttribute('aria-sort')}`));
    const regions = () =>
      table.locator('tbody tr > :nth-child(3)').evaluateAll((cells) => cells.map((cell) => cell.textContent ?? ''));
    const byName = (a: string, b: string) => a.localeCompare(b);
    await expect(sortedHeaders()).resolves.toEqual(['Level ascending']);

    await tabTo(page, 'th > button', 'Region');
    // Named by its heading alone: the arrows are decoration, aria-sort carries the order.
    await expect(page.getByRole('button', { name: 'Region', exact: true }).count()).resolves.toBe(1);
    await page.keyboard.press('Enter');
    await expect(sortedHeaders()).resolves.toEqual(['Region ascending']);
    const ascending = await regions();
    expect(ascending).toEqual([...ascending].sort(byName));
    await expect(page.getByRole('status').textContent()).resolves.toBe('Sorted by Region, A to Z.');

    await page.keyboard.press('Space');
    await expect(sortedHeaders()).resolves.toEqual(['Region descending']);
    const descending = await regions();
    expect(descending).toEqual([...ascending].sort(byName).reverse());
    expect(await axeViolations(page)).toEqual([]);
  });

  test('a chart is named by the figures it draws, and links to the table of every value', async () => {
    const page = await visit('light', '/cutters/knife/');
    const name =
      /^Cost by level Line chart of cost for 8 levels.* Cost goes from \$249 \(level 1\) to \$9\.304M \(level 8\)/;
    await expect(page.getByRole('img', { name }).count()).resolves.toBe(1);
    await page.getByRole('figure').first().getByRole('link', { name: 'the table of all cutters' }).click();
    await page.waitForURL(/\/cutters\/#cutters-table$/);
  });

  test('with reduced motion nothing moves; without it the home cards do', async () => {
    const page = await visit('light', '/');
    // Every element and pseudo-element with a transition or animation longer than zero.
    const moving = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('*')].flatMap((element) =>
          [null, '::before', '::after'].flatMap((pseudo) => {
            const style = getComputedStyle(element, pseudo);
            const durations = `${style.transitionDuration},${style.animationDuration}`.split(',');
            const moves = durations.some((duration) => Number.parseFloat(duration) > 0);
            return moves ? [`${element.tagName.toLowerCase()}.${element.className}${pseudo ?? ''}`] : [];
          }),
        ),
      );
    await expect(moving()).resolves.toContain('a.card');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect(moving()).resolves.toEqual([]);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
  });
});
