// The wiki under its own Content-Security-Policy (public/_headers) in a real browser (Debian's
// chromium through playwright-core): every page kind, light and dark, runs with no violation,
// with the search and the planner used; an injected script or style is refused, and no other
// site can frame the wiki. A violation is seen both ways the browser tells it: the page's
// securitypolicyviolation event, and the console (where a Web Worker's, such as Pagefind's,
// appear).
import type { ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser, skipBrowserTests, type Browser } from '../support/browser.ts';
import { PAGES, SCREENS, type Scheme } from '../support/wiki-pages.ts';
import { startRuntime, type Runtime } from '../support/runtimes.ts';

/** A tab and what the policy refused in it since the last look. */
interface Tab {
  page: Page;
  violations: string[];
  /** Resolves at the next violation reported in the tab that matches `pattern`. */
  nextViolation: (pattern: RegExp) => Promise<string>;
}

const isCspMessage = (message: ConsoleMessage) => /Content.Security.Policy/i.test(message.text());

/** The policy the document was served with, as a browser applies it. */
function policyOf(headers: Record<string, string>): string {
  return headers['content-security-policy'] ?? '(none)';
}

describe.skipIf(skipBrowserTests())('the Content-Security-Policy in a browser', () => {
  let server: Runtime;
  let browser: Browser;
  const tabs = new Map<Scheme, Tab>();

  async function openTab(viewport: { width: number; height: number }, scheme: Scheme): Promise<Tab> {
    const page = await browser.context.newPage();
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: scheme });
    // Each visit fetches its page afresh, so the policy read is the one its answer carries (a
    // revalidated 304 carries none: the browser keeps the cached answer's).
    const devtools = await browser.context.newCDPSession(page);
    await devtools.send('Network.enable');
    await devtools.send('Network.setCacheDisabled', { cacheDisabled: true });
    const violations: string[] = [];
    let waiting: { pattern: RegExp; resolve: (violation: string) => void }[] = [];
    const report = (violation: string) => {
      violations.push(violation);
      for (const { pattern, resolve } of waiting) if (pattern.test(violation)) resolve(violation);
      waiting = waiting.filter(({ pattern }) => !pattern.test(violation));
    };
    // A binding of the DevTools protocol, and a script it adds: neither is subject to the page's policy.
    await page.exposeFunction('reportCspViolation', (text: string) => report(`${page.url()}: ${text}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { reportCspViolation: (text: string) => void }).reportCspViolation;
        const where = `${event.sourceFile}:${event.lineNumber}`;
        report(`${event.effectiveDirective} refused ${event.blockedURI || 'inline'} (${where})`);
      });
    });
    page.on('console', (message) => {
      if (isCspMessage(message)) report(`${page.url()}: console: ${message.text()}`);
    });
    page.on('worker', (worker) =>
      worker.on('console', (message) => {
        if (isCspMessage(message)) report(`${worker.url()}: console: ${message.text()}`);
      }),
    );
    return {
      page,
      violations,
      nextViolation: (pattern) => new Promise((resolve) => waiting.push({ pattern, resolve })),
    };
  }

  beforeAll(async () => {
    server = await startRuntime('node', { tokens: ['content-security-test-token'] });
    browser = await launchBrowser();
    for (const { scheme, viewport } of SCREENS) tabs.set(scheme, await openTab(viewport, scheme));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  function tab(scheme: Scheme): Tab {
    const found = tabs.get(scheme);
    if (!found) throw new Error(`no ${scheme} tab`);
    found.violations.length = 0;
    return found;
  }

  /** Waits for `done`, or fails at the first violation in the tab (which would keep it from happening). */
  async function unlessRefused(current: Tab, done: Promise<unknown>): Promise<void> {
    const refused = current.nextViolation(/./).then((violation) => {
      throw new Error(`refused by the policy: ${violation}`);
    });
    await Promise.race([done, refused]);
  }

  /** Opens `path` in the tab; returns the policy its document was served with. */
  async function visit(current: Tab, path: string, ready?: string): Promise<string> {
    const response = await current.page.goto(`${server.url}${path}`);
    if (!response) throw new Error(`${path}: no response`);
    if (ready) await unlessRefused(current, current.page.locator(ready).first().waitFor());
    return policyOf(await response.allHeaders());
  }

  describe.for(SCREENS)('$scheme colour scheme on a $screen', ({ scheme }) => {
    test.for(PAGES)('$name: served under the policy, with no violation', async (audited) => {
      const current = tab(scheme);
      const policy = await visit(current, audited.path, audited.ready);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(current.violations).toEqual([]);
    });

    test('the search: a query typed in the box lists its results, with no violation', async () => {
      const current = tab(scheme);
      await visit(current, '/search/');
      await current.page.locator('#search input').fill('chestnut oak');
      const result = current.page.locator('.pagefind-ui__result-link', { hasText: /^Chestnut Oak$/ });
      await unlessRefused(current, result.waitFor());
      expect(current.violations).toEqual([]);
    });

    test('the planner: changing the inputs changes the ranking, with no violation', async () => {
      const current = tab(scheme);
      await visit(current, '/planner/', '#planner:not([hidden])');
      const rows = current.page.locator('#planner-table tbody tr');
      await expect(rows.count()).resolves.toBe(1);
      await current.page.getByLabel('Your money').fill('30000');
      await expect(rows.count()).resolves.toBe(3);
      await current.page.getByLabel('Your plot').selectOption({ label: 'Level 8 plot (114%)' });
      await expect(current.page.locator('#planner-caption-note').textContent()).resolves.toMatch(/level 8 plot/);
      expect(current.violations).toEqual([]);
    });
  });

  /** What an attacker's markup would add: each marks the page if the browser lets it take effect. */
  const INJECTED = [
    { what: 'script', tag: 'script', text: 'document.documentElement.dataset.injected = "ran"', directive: 'script' },
    { what: 'style', tag: 'style', text: ':root { --injected: ran }', directive: 'style' },
  ] as const;

  test.for(INJECTED)('an injected inline $what takes no effect, and the refusal is reported', async (injected) => {
    const current = tab('light');
    await visit(current, '/trees/oak-tree/');
    // Both ways the browser tells it, so that neither watch is blind.
    const refused = [
      current.nextViolation(new RegExp(`${injected.directive}-src-elem refused inline`)),
      current.nextViolation(new RegExp(`console: .*inline ${injected.what}`)),
    ];
    const tookEffect = await current.page.evaluate(({ tag, text }) => {
      const element = document.createElement(tag);
      element.textContent = text;
      document.head.append(element);
      const root = document.documentElement;
      return root.dataset.injected === 'ran' || getComputedStyle(root).getPropertyValue('--injected').trim() === 'ran';
    }, injected);
    expect(tookEffect).toBe(false);
    await Promise.all(refused);
  });

  test('another site cannot frame the wiki', async () => {
    // A new tab, a document of no origin of the wiki's (its first about:blank), framing a wiki page.
    const framing = await openTab({ width: 1280, height: 900 }, 'light');
    const wiki = `${server.url}/trees/oak-tree/`;
    const refused = framing.nextViolation(/frame-ancestors 'none'/);
    await framing.page.setContent(`<iframe src="${wiki}" title="framed"></iframe>`);
    const frames = framing.page.frames().filter((frame) => frame !== framing.page.mainFrame());
    expect(frames.map((frame) => frame.url())).toEqual(['chrome-error://chromewebdata/']);
    await refused;
    await framing.page.close();
  });
});
