// What POST /mcp accepts (src/apps/mcp/answer.ts enforces it; OpenAPI and the docs state it).

/** A JSON-RPC message to /mcp is at most this long: a tool call's arguments are a few short strings. */
export const MCP_MAX_BODY_BYTES = 16 * 1024;
/** Arrays and objects nest at most this deep in a message (an initialize request nests 4). */
export const MCP_MAX_DEPTH = 16;
/** The one method /mcp answers: it offers no event stream (GET) and keeps no session (DELETE). */
export const MCP_METHODS = 'POST';
