// The test host of MCP Apps (mcp-apps/host-page.ts) as a page in Chromium: bundled once by
// esbuild, opened with a function that forwards each tool call a view makes to a real MCP
// client, and what it records: every tools/call, console error and page error.
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { build } from 'esbuild';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import type { McpClient } from './mcp.ts';

let hostScript: Promise<string> | undefined;
const bundledHost = () => {
  hostScript ??= build({
    entryPoints: [join(import.meta.dirname, 'mcp-apps', 'host-page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then(({ outputFiles }) => outputFiles[0]?.text ?? '');
  return hostScript;
};

/** A tab holding the test host, its tool calls answered by `client` (set it per runtime). */
export interface TestHost {
  page: Page;
  /** The client the view's tool calls go to. */
  client: McpClient | undefined;
  /** Every tools/call the view made, in order. */
  calls: { name: string; arguments?: Record<string, unknown> }[];
  /** Console errors (a CSP violation is one) and uncaught errors, of the host and the view. */
  errors: string[];
  show(view: {
    html: string;
    tool: string;
    args: Record<string, unknown>;
    result: unknown;
    theme?: McpUiTheme;
  }): Promise<Frame>;
  setTheme(theme: McpUiTheme): Promise<void>;
}

export async function openTestHost(context: BrowserContext): Promise<TestHost> {
  const page = await context.newPage();
  // About the width a chat gives an inline view.
  await page.setViewportSize({ width: 760, height: 900 });
  const host: TestHost = {
    page,
    client: undefined,
    calls: [],
    errors: [],
    async show({ html, tool, args, result, theme = 'light' }) {
      await page.evaluate((view) => window.showView(view), {
        html,
        tool,
        args,
        result: result as CallToolResult,
        theme,
      });
      const frame = page.frames().find((each) => each !== page.mainFrame());
      if (!frame) throw new Error('The test host shows no frame');
      return frame;
    },
    async setTheme(theme) {
      await page.evaluate((chosen) => window.setTheme(chosen), theme);
    },
  };
  page.on('console', (message) => {
    if (message.type() === 'error') host.errors.push(message.text());
  });
  page.on('pageerror', (error) => host.errors.push(String(error)));
  await page.exposeFunction('callServerTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
    host.calls.push({ name: params.name, arguments: params.arguments });
    if (!host.client) throw new Error('The test host has no client to call');
    return host.client.callTool(params);
  });
  await page.setContent(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title>' +
      '<style>body{margin:0}iframe{border:0;width:100%;height:900px}</style></head>' +
      `<body><script type="module">${await bundledHost()}</script></body></html>`,
  );
  await page.waitForFunction(() => typeof window.showView === 'function');
  return host;
}
