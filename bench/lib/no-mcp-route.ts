// The /mcp app of the Worker without its apps (bench/lib/worker-startup.ts), built in place of
// src/apps/mcp/app.ts: the Worker as it was before MCP, with the same shape, so the builds
// differ by the apps alone.
import type { App } from '../../src/edge/apps.ts';

export const mcpApp: App = async () => new Response(null, { status: 404 });
