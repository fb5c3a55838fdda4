// Where /mcp is and what it accepts (src/apps/mcp/answer.ts enforces it; OpenAPI and the docs state
// it), and its 405, which the bridges answer before the app is loaded and the app itself alike.
import type { HeaderRecord } from '../../edge/decision.ts';

/** The MCP server for AI assistants (answer.ts): behind the API's token and rate limit. */
export const MCP_PATH = '/mcp';

/** A JSON-RPC message to /mcp is at most this long: a tool call's arguments are a few short strings. */
export const MCP_MAX_BODY_BYTES = 16 * 1024;
/** Arrays and objects nest at most this deep in a message (an initialize request nests 4). */
export const MCP_MAX_DEPTH = 16;
/** The one method /mcp answers: it offers no event stream (GET) and keeps no session (DELETE). */
export const MCP_METHODS = 'POST';

/** JSON-RPC's implementation-defined server error, which /mcp answers a 405 with (as the MCP SDK's transport does). */
const RPC_SERVER_ERROR = -32000;

/** The 405 of a method other than POST: a JSON-RPC error, with the headers of every answer of /mcp. */
export const mcpNotAllowed = (method: string, headers: HeaderRecord): Response =>
  new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: RPC_SERVER_ERROR,
        message:
          `Method ${method} is not allowed here: POST one JSON-RPC message (this server keeps no session and ` +
          'offers no event stream).',
      },
      id: null,
    }),
    { status: 405, headers: { ...headers, 'Content-Type': 'application/json', Allow: MCP_METHODS } },
  );
