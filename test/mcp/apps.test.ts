// The MCP Apps views (src/apps/mcp/views.ts) as a host shows them: a test host in Chromium
// (test/support/mcp-apps.ts) embeds each view's page, read from the runtime's own server, in a
// sandboxed frame through ext-apps' AppBridge and hands it a real tool result from that
// runtime: the Node server's /mcp, the Worker's (workerd) and `treefarm mcp --bundle` over
// stdio. What a player sees (the tree's name and figures, the planner's first row), a changed
// input asking plan again through the host, no console error or CSP violation, and the wiki's
// colours and axe's verdict in both themes. One browser and one tab for every case.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { figureDefinitions } from '../../src/contract/figures.ts';
import { shown } from '../../src/contract/format.ts';
import { kindIds, type RecordsByKind } from '../../src/schema/kinds.ts';
import { axeViolations } from '../support/a11y.ts';
import { type Browser, launchBrowser, screenshotDir, skipBrowserTests } from '../support/browser.ts';
import { type McpClient, httpClient, stdioClient } from '../support/mcp.ts';
import { openTestHost, type TestHost } from '../support/mcp-apps.ts';
import { distDir, type Runtime, startRuntime } from '../support/runtimes.ts';

const TOKEN = 'mcp-apps-token';
const BIN = join(projectDir, 'src', 'client', 'cli', 'bin.ts');
const bundle = join(distDir, 'downloads', bundleFileName(loadContent(join(projectDir, 'content')).version, 'tar.gz'));

type Where = 'node' | 'worker' | 'stdio';
/** Each runtime with the era its client speaks, so both eras reach a view. */
const RUNTIMES: { where: Where; kind: 'modern' | 'legacy' | 'v1' }[] = [
  { where: 'node', kind: 'modern' },
  { where: 'worker', kind: 'legacy' },
  { where: 'stdio', kind: 'v1' },
];

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent: Record<string, unknown>;
}

const viewPage = async (client: McpClient, name: string) => {
  const { contents } = await client.readResource({ uri: `ui://treefarm/${name}.html` });
  return contents[0]?.text ?? '';
};
const call = async (client: McpClient, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const firstRowOf = (answer: ToolResult) =>
  (answer.structuredContent['ranking'] as { name: string; profitPerHour: number }[])[0];

const FIRST_ROW_NAME = '#planner-table tbody tr:first-child th';

/** Waits until the view's element at `selector` says `text` (the view renders once the host's messages come). */
async function shows(frame: Frame, selector: string, text: string | undefined) {
  try {
    await frame.waitForFunction(([where, said]) => document.querySelector(where)?.textContent === said, [
      selector,
      text,
    ] as const);
  } catch (error) {
    const seen = await frame.locator('body').textContent();
    throw new Error(`${selector} never said ${JSON.stringify(text)}; the view shows: ${seen}`, { cause: error });
  }
}

describe.skipIf(skipBrowserTests())('the MCP Apps views in a test host', () => {
  let browser: Browser;
  let host: TestHost;
  const runtimes: Runtime[] = [];
  const clients = new Map<Where, McpClient>();

  beforeAll(async () => {
    const [node, worker] = await Promise.all([
      startRuntime('node', { tokens: [TOKEN] }),
      startRuntime('worker', { tokens: [TOKEN] }),
    ]);
    runtimes.push(node, worker);
    const kindOf = (where: Where) => RUNTIMES.find((runtime) => runtime.where === where)?.kind ?? 'v1';
    clients.set('node', await httpClient(node.url, TOKEN, kindOf('node')));
    clients.set('worker', await httpClient(worker.url, TOKEN, kindOf('worker')));
    clients.set('stdio', await stdioClient(process.execPath, [BIN, 'mcp', '--bundle', bundle], kindOf('stdio')));
    browser = await launchBrowser();
    host = await openTestHost(browser.context);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([...clients.values()].map((client) => client.close()));
    await browser?.close();
    await Promise.all(runtimes.map((runtime) => runtime.close()));
  });

  /** Shows the view with the runtime's own page and answer; its tool calls go to the same runtime. */
  async function show(where: Where, view: string, tool: string, args: Record<string, unknown>) {
    const client = clients.get(where);
    if (!client) throw new Error(`no client for ${where}`);
    host.client = client;
    host.calls.length = 0;
    host.errors.length = 0;
    const result = await call(client, tool, args);
    const frame = await host.show({ html: await viewPage(client, view), tool, args, result });
    return { client, result, frame };
  }

  /** What the view shows, for docs/mcp.md's pictures: from the Node server, in the light theme. */
  async function picture(where: Where, view: string) {
    if (where !== 'node') return;
    mkdirSync(screenshotDir, { recursive: true });
    // The whole view in the window, so every part of the frame is painted.
    const height = (await host.page.locator('iframe').boundingBox())?.height ?? 900;
    await host.page.setViewportSize({ width: 760, height: Math.ceil(height) });
    await host.page.locator('iframe').screenshot({ path: join(screenshotDir, `mcp-${view}.png`) });
    await host.page.setViewportSize({ width: 760, height: 900 });
  }

  /** axe's violations in the frame, light then dark (the host's theme, as it changes). */
  async function bothThemes(frame: Frame) {
    const background = () => frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = { background: await background(), axe: await axeViolations(frame) };
    await host.setTheme('dark');
    await frame.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    return { light, dark: { background: await background(), axe: await axeViolations(frame) } };
  }
  /** The wiki's background in each theme (wiki.css's --bg), and no axe violation in either. */
  const THEMED = {
    light: { background: 'rgb(246, 244, 236)', axe: [] },
    dark: { background: 'rgb(16, 22, 17)', axe: [] },
  };

  test.for(kindIds)(
    'the record view shows a record of %s as its wiki page titles it, with its figures',
    async (kind) => {
      const { frame, result } = await show('node', 'record', 'find_record', { kind, query: '1' });
      const records = result.structuredContent['records'] as RecordsByKind[typeof kind][];
      const titles = records.map((record) =>
        (figureDefinitions[kind].title as (data: typeof record) => string)(record),
      );
      await shows(frame, 'h1', titles[0]);
      expect(await frame.locator('h1').allTextContents()).toEqual(titles);
      expect(await frame.locator('.figure-tables table').count()).toBeGreaterThanOrEqual(records.length);
      expect(host.errors).toEqual([]);
    },
  );

  describe.for(RUNTIMES)('from $where ($kind client)', ({ where }) => {
    test('the record view shows the tree found, its figures and its charts, with no error', async () => {
      const { frame, result } = await show(where, 'record', 'find_record', { kind: 'trees', query: 'giant sequoia' });
      const [tree] = result.structuredContent['records'] as { name: string; logValue: number; level: number }[];
      if (!tree) throw new Error('find_record found no Giant Sequoia');
      await shows(frame, 'h1', tree.name);
      const logValue = frame.locator('tr', { has: frame.locator('th', { hasText: /^Log value$/ }) });
      expect(await logValue.locator('td').first().textContent()).toBe(shown('money', tree.logValue));
      await frame.locator('figure.chart svg').first().waitFor();
      expect(await frame.locator('figure.chart').count()).toBeGreaterThan(0);
      // The charts show every tree: the view asks for the kind's list, then each next page by its cursor.
      const [first, ...next] = host.calls;
      expect(first).toEqual({ name: 'list_records', arguments: { kind: 'trees' } });
      for (const call of next)
        expect(call).toEqual({ name: 'list_records', arguments: { kind: 'trees', cursor: expect.any(String) } });
      expect(new Set(next.map((call) => call.arguments?.['cursor'])).size).toBe(next.length);
      await picture(where, 'record');
      expect(await bothThemes(frame)).toEqual(THEMED);
      expect(host.errors).toEqual([]);
    });

    test('the planner view shows the first row of the plan, and a changed level asks plan again', async () => {
      const args = { level: 3, plot: 2, money: 100_000 };
      const { client, frame, result } = await show(where, 'planner', 'plan', args);
      const best = firstRowOf(result);
      const firstRow = frame.locator('#planner-table tbody tr').first();
      await shows(frame, FIRST_ROW_NAME, best?.name);
      expect(await firstRow.locator('td').nth(2).textContent()).toBe(shown('money', best?.profitPerHour ?? 0));
      expect(await frame.locator('#planner-level').inputValue()).toBe('3');

      const later = firstRowOf(await call(client, 'plan', { ...args, level: 20 }));
      await frame.locator('#planner-level').fill('20');
      await frame.locator('#planner-level').dispatchEvent('change');
      await shows(frame, FIRST_ROW_NAME, later?.name);
      // The wiki planner's note on its inputs (plot 2 grows at 102 %).
      expect(await frame.locator('#planner-caption-note').textContent()).toBe(
        'On the level 2 plot (102%), from level 20, with $100,000.',
      );
      expect(host.calls).toEqual([{ name: 'plan', arguments: { ...args, level: 20 } }]);
      await picture(where, 'planner');
      expect(await bothThemes(frame)).toEqual(THEMED);
      expect(host.errors).toEqual([]);
    });
  });
});
