// The R2 mode's promise, in a real browser against `npm run worker` with BODIES=r2: the wiki
// and its search are static assets that never run the Worker (free and unlimited on
// Cloudflare), while the API still runs it and answers only with a token. The Worker counts
// its own invocations (INVOCATIONS_PATH), the honest measure: the front sees every request.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INVOCATIONS_PATH } from '../../src/contract/bucket-layout.ts';
import { startRuntime, type Runtime } from '../support/runtimes.ts';
import { launchBrowser, skipBrowserTests, type Browser } from '../support/browser.ts';

const TOKEN = 'worker-invocations-test-token';

describe.skipIf(skipBrowserTests())('the R2 mode in a browser', () => {
  let worker: Runtime;
  let browser: Browser;
  beforeAll(async () => {
    worker = await startRuntime('worker-r2', { tokens: [TOKEN], countInvocations: true });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
  });

  const invocations = async () => Number(await (await fetch(`${worker.url}${INVOCATIONS_PATH}`)).text());

  /** The URLs a page loaded, so a failure shows what the browser asked for. */
  function loaded(page: Page): string[] {
    const urls: string[] = [];
    page.on('requestfinished', (request) => urls.push(request.url()));
    return urls;
  }

  test('a tree page and a wiki search run the Worker zero times', async () => {
    const before = await invocations();
    const page = await browser.context.newPage();
    const urls = loaded(page);
    await page.goto(`${worker.url}/trees/oak-tree/`, { waitUntil: 'networkidle' });
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Oak Tree');
    // Pagefind's script, wasm, index and one fragment per result, as the search page loads them.
    const titles: string[] = await page.evaluate(`(async () => {
      const pagefind = await import('/pagefind/pagefind.js');
      const search = await pagefind.search('oak');
      const data = await Promise.all(search.results.map((result) => result.data()));
      return data.map((result) => result.meta.title);
    })()`);
    await page.close();
    expect(titles).toContain('Oak Tree');
    expect(urls.filter((url) => url.includes('/pagefind/')).length).toBeGreaterThan(titles.length);
    expect({ invocations: (await invocations()) - before, urls: urls.length }).toEqual({
      invocations: 0,
      urls: urls.length,
    });
  });

  test('the API still runs the Worker, and answers only with a token', async () => {
    const before = await invocations();
    expect((await fetch(`${worker.url}/api/trees`)).status).toBe(401);
    const answered = await fetch(`${worker.url}/api/trees`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(answered.status).toBe(200);
    expect((await invocations()) - before).toBe(2);
  });
});
