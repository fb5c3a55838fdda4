// The MCP Apps views (the io.modelcontextprotocol/ui extension, SEP-1865): the planner and the
// record card, each one self-contained HTML page (ui://treefarm/<name>.html) that a host
// renders in a sandboxed frame beside the tool's answer. The build bundles each from its entry
// (views/<name>.ts, the wiki's own code and styles) and stores it as a body of the current data
// (viewRoute), so the Node server, the Worker and `treefarm mcp --bundle` read it as they read
// any body. A tool names its view in `_meta.ui`; its answer (text and structuredContent) is the
// same with or without it, so a host without the extension sees nothing new.
import type { McpUiResourceMeta, McpUiToolMeta } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { currentRoute, type RouteIndex } from '../../contract/resolve.ts';
import type { ToolName } from './tool-schemas.ts';

export const MCP_VIEWS = {
  planner: {
    title: 'Planner',
    description:
      "The planner as the wiki shows it: the farm's level, plot and money as inputs, the trees within reach " +
      'ranked by profit per hour, and the next upgrade; a changed input asks plan again through the host.',
    tools: ['plan'],
  },
  record: {
    title: 'Record card',
    description:
      "A record as its wiki page shows it: its figures, the derived ones, and its kind's charts with it marked.",
    tools: ['find_record', 'tree_economics'],
  },
} as const satisfies Record<string, { title: string; description: string; tools: readonly ToolName[] }>;

export type ViewName = keyof typeof MCP_VIEWS;
export const viewNames = Object.keys(MCP_VIEWS) as ViewName[];

/** The route of a view's page in the current data's index: read by the MCP server, never sent by the API. */
export const viewRoute = (name: ViewName) => `_mcp/views/${name}`;
export const viewUri = (name: ViewName) => `ui://treefarm/${name}.html`;

/** No origin outside the page itself: no fetch, no script, style, font or frame from anywhere. */
export const VIEW_RESOURCE_META: McpUiResourceMeta = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/** The `_meta` of a tool with a view (both spellings hosts read: `ui.resourceUri` and the older flat key). */
export function toolViewMeta(tool: ToolName): Record<string, unknown> | undefined {
  const name = viewNames.find((each) => (MCP_VIEWS[each].tools as readonly string[]).includes(tool));
  if (name === undefined) return undefined;
  const ui: McpUiToolMeta = { resourceUri: viewUri(name) };
  return { ui, 'ui/resourceUri': ui.resourceUri };
}

/** The views as resources/list lists them. */
export const viewResources = () =>
  viewNames.map((name) => ({
    uri: viewUri(name),
    name: `view/${name}`,
    title: MCP_VIEWS[name].title,
    description: MCP_VIEWS[name].description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: VIEW_RESOURCE_META },
  }));

/** The view a URI names, if it names one. */
export const viewAt = (uri: string): ViewName | undefined => viewNames.find((name) => viewUri(name) === uri);

/** A view's page as resources/read gives it; undefined when the build holds none (a bundle made before the views). */
export async function readView(index: RouteIndex, name: ViewName) {
  const route = await currentRoute(index, viewRoute(name)).catch(() => undefined);
  if (route === undefined) return undefined;
  return {
    uri: viewUri(name),
    mimeType: RESOURCE_MIME_TYPE,
    // Stored as a JSON string, as every body is JSON (build/view-pages.ts, src/build/mcp-views.ts).
    text: JSON.parse(await index.text(route.body)) as string,
    _meta: { ui: VIEW_RESOURCE_META },
  };
}
