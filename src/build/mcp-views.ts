// The MCP Apps views' pages (src/apps/mcp/build/view-pages.ts) as routes of the current data: stored as
// bodies (as JSON strings; read by the MCP server, never sent by the API), so every runtime and
// bundle holds them.
import { viewPage } from '../apps/mcp/build/view-pages.ts';
import { viewNames, viewRoute } from '../apps/mcp/views.ts';
import type { ApiRoute } from './api-route.ts';

let made: ApiRoute[] | undefined;

/**
 * Each view's page as a route of the current data, its body the page as a JSON string (a body is
 * JSON, in one line of a bundle's api/bodies.jsonl): made once a process, the same for every build of it.
 */
export function mcpViewRoutes(): ApiRoute[] {
  made ??= viewNames.map((name) => ({ route: viewRoute(name), body: JSON.stringify(viewPage(name)), indexOnly: true }));
  return made;
}
