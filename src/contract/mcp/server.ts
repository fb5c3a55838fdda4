// The MCP server of the tools (tools.ts) over one RouteIndex: the online edge (src/edge/mcp.ts,
// one server a request, stateless) and the offline stdio server (src/client/mcp.ts) both make
// it here. The SDK's low-level Server rather than McpServer: McpServer answers an unknown tool
// or a wrong argument with a tool result flagged isError, where the protocol (2025-06-18,
// "Error Handling") and this project's contract want a JSON-RPC error that names the problem;
// and the tool list is made once, not converted from the schemas on every request.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import type { RouteIndex } from '../resolve.ts';
import { isToolName, runTool, ToolInputError, toolNames, tools } from './tools.ts';

export const MCP_SERVER_INFO = { name: 'treefarm-data', title: 'Tree farm data', version: '1.0.0' } as const;

const INSTRUCTIONS =
  'Reference data of a tree-farming game: its trees, cutters, gifts, plots, storages and vehicles, each with ' +
  "the game's published figures (money in in-game dollars, times in seconds, speeds in percent), and the planner " +
  'that ranks the trees a player can reach by profit per hour. Every tool is read-only. Find a record by name, ' +
  'alias or level with find_record (a misspelt name gets the nearest names back), list a kind with ' +
  'list_records, and work out what a tree earns with tree_economics or what to plant next with plan.';

/**
 * The server only answers: it never asks a client to fill a form (elicitation), the one use the
 * SDK has for a JSON Schema validator. Passing this one keeps the SDK from building its
 * default (Ajv) for every request, which costs CPU and compiles code at run time.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'this server asks no client for input' }),
};

/**
 * A JSON-RPC error as the SDK sends what a handler throws: this code and this message as they
 * are (its McpError would prefix "MCP error <code>: " to what goes on the wire).
 */
class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

let listed: Tool[] | undefined;

/** The tool list, made from the schemas once. */
export function toolList(): Tool[] {
  listed ??= toolNames.map((name): Tool => {
    const { title, description, input, output } = tools[name];
    return {
      name,
      title,
      description,
      // Draft 7, which every JSON Schema validator reads (the SDK client's Ajv among them): a
      // [min, max] range is a tuple, which later drafts write in a way draft 7 misreads.
      inputSchema: z.toJSONSchema(input, { io: 'input', target: 'draft-7' }) as Tool['inputSchema'],
      outputSchema: z.toJSONSchema(output, { io: 'output', target: 'draft-7' }) as Tool['outputSchema'],
      annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    };
  });
  return listed;
}

/** An MCP server of the tools, answering from `index`. */
export function createMcpServer(index: RouteIndex): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => callTool(index, params.name, params.arguments));
  return server;
}

/**
 * One tool call: a JSON-RPC error (invalid params) for an unknown tool or wrong arguments,
 * else the tool's answer as a short text, the same data as JSON text (for clients that read
 * only text) and as structuredContent.
 */
export async function callTool(
  index: RouteIndex,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  if (!isToolName(name))
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Unknown tool ${JSON.stringify(name)}: the tools are ${toolNames.join(', ')}.`,
    );
  const given = args ?? {};
  const parsed = tools[name].input.safeParse(given);
  if (!parsed.success)
    throw new RpcError(ErrorCode.InvalidParams, `Invalid arguments for ${name}: ${issues(parsed.error, given)}`);
  let answer: Awaited<ReturnType<typeof runTool>>;
  try {
    answer = await runTool(index, name, parsed.data);
  } catch (error) {
    if (error instanceof ToolInputError)
      throw new RpcError(ErrorCode.InvalidParams, `Invalid arguments for ${name}: ${error.message}`);
    // The data could not be read (a damaged build or bundle): say so, without the internals.
    throw new RpcError(ErrorCode.InternalError, `${name} could not read the data to answer; try again later.`);
  }
  return {
    content: [
      { type: 'text', text: answer.text },
      { type: 'text', text: JSON.stringify(answer.data) },
    ],
    structuredContent: answer.data,
  };
}

/**
 * What is wrong with the arguments, one clause an argument. They are one flat object (the SDK
 * checks that `arguments` is one), so every issue but unknown keys is about the argument its
 * path starts with; a required one that was not given is missing (JSON has no undefined).
 */
function issues(error: z.ZodError, given: Record<string, unknown>): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
      const name = String(issue.path[0]);
      return given[name] === undefined ? `${name} is missing` : `${name}: ${issue.message}`;
    })
    .join('; ');
}
