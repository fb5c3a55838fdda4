// /mcp on the seam (src/edge/apps.ts): the MCP server of src/apps/mcp/answer.ts as an app. Each adapter
// imports this module at the first request for /mcp, so nothing else pays for the MCP SDK.
import type { App } from '../../edge/apps.ts';
import { answerMcp } from './answer.ts';

export const mcpApp: App = (request, { index, headers }) => answerMcp(request, index, headers);
