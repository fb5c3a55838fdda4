// A host of MCP Apps in the browser, for the tests (test/mcp/apps.test.ts): it embeds a view's
// page in a sandboxed frame (scripts only: an opaque origin, no same-origin access), talks to it
// through ext-apps' AppBridge over postMessage, hands it a tool's input and result as a host
// would, and forwards each tools/call the view makes to the test (window.callServerTool,
// exposed by Playwright), which asks the real MCP server.
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/client';
import { AppBridge, type McpUiTheme, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** What the test hands the page: the view's page and the tool call it is shown for. */
export interface ShownView {
  html: string;
  tool: string;
  args: Record<string, unknown>;
  result: CallToolResult;
  theme: McpUiTheme;
}

declare global {
  interface Window {
    callServerTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    showView(view: ShownView): Promise<void>;
    setTheme(theme: McpUiTheme): Promise<void>;
  }
}

let bridge: AppBridge | undefined;

window.showView = async ({ html, tool, args, result, theme }) => {
  await bridge?.close();
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = `The ${tool} view`;
  frame.srcdoc = html;
  document.body.replaceChildren(frame);
  const window_ = frame.contentWindow;
  if (!window_) throw new Error('The frame has no window');
  const shown = new AppBridge(
    null,
    { name: 'treefarm-test-host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { theme, toolInfo: { tool: { name: tool, inputSchema: { type: 'object' } } } } },
  );
  bridge = shown;
  shown.oncalltool = (params) => window.callServerTool(params);
  shown.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    shown.oninitialized = () => resolve();
  });
  await shown.connect(new PostMessageTransport(window_, window_));
  await initialized;
  await shown.sendToolInput({ arguments: args });
  await shown.sendToolResult(result);
};

window.setTheme = async (theme) => {
  await bridge?.sendHostContextChange({ theme });
};
