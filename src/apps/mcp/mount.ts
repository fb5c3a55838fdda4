// /mcp on the seam (src/edge/apps.ts): where the MCP server is mounted, what it accepts, its 405,
// and how a runtime loads it (app.ts, by the first request for /mcp, so nothing else pays for
// the MCP SDK). Behind the API's token and rate limit, with a preflight of its own.
import type { AppMount } from '../../edge/apps.ts';
import { MCP_MAX_BODY_BYTES, MCP_METHODS, MCP_PATH, mcpNotAllowed } from './bounds.ts';

/**
 * The preflight of /mcp: POST with the headers an MCP client sends (its JSON body's type, the
 * Accept it must send, the protocol version it negotiated, and the method and name a 2026-07-28
 * client names in headers), so a browser-based assistant can call it.
 */
export const MCP_PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name',
  'Access-Control-Max-Age': '86400',
} as const;

export const mcpMount = {
  name: 'mcp',
  path: MCP_PATH,
  methods: MCP_METHODS,
  maxBodyBytes: MCP_MAX_BODY_BYTES,
  guarded: { preflight: MCP_PREFLIGHT_HEADERS },
  notAllowed: mcpNotAllowed,
  statuses: [200, 202, 400, 401, 405, 406, 413, 415, 429],
  variables: {},
  loader: () => async () => (await import('./app.ts')).mcpApp,
} as const satisfies AppMount<object>;
