// The MCP server of the tools (tools.ts) over one RouteIndex: the online edge (src/edge/mcp.ts,
// one server a request, stateless) and the offline stdio server (src/client/mcp.ts) both make
// it here. Errors follow the protocol version the server negotiates (2025-11-25, "Error
// Handling"): a malformed request, an unknown method or tool is a JSON-RPC error; arguments
// that fail a tool's schema or name nothing in the data are a tool result flagged isError,
// naming the argument and what it expects, so the model can correct itself. The SDK's
// low-level Server rather than McpServer, so each message is ours and the tool list is made
// once, not converted from the schemas on every request.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  ErrorCode,
  type InitializeResult,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import type { RouteIndex } from '../resolve.ts';
import { isJsonObject } from '../json-object.ts';
import { argumentIssues, given, isToolName, runTool, ToolInputError, toolNames, tools } from './tools.ts';

export const MCP_SERVER_INFO = { name: 'treefarm-data', title: 'Tree farm data', version: '1.0.0' } as const;

/** Tools alone, whose list never changes while a server runs. */
const CAPABILITIES = { tools: { listChanged: false } };

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
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
  });
  // The methods that take params are answered here, not through setRequestHandler: the SDK would
  // check their params against its own schemas first and answer a malformed one (`arguments: []`,
  // no `name`, a `protocolVersion` that is a number) with -32603 and zod's issue list, where
  // -32602 with one sentence is due. So its own initialize goes too.
  server.removeRequestHandler('initialize');
  server.fallbackRequestHandler = async (request: JSONRPCRequest) => {
    if (request.method === 'initialize') return initializeResult(initializeParams(request.params));
    if (request.method === 'tools/call') {
      const { name, args } = toolCallParams(request.params);
      return callTool(index, name, args);
    }
    // One page holds every tool: a cursor has nothing more to give.
    if (request.method === 'tools/list') return { tools: toolList() };
    throw new RpcError(
      ErrorCode.MethodNotFound,
      `Unknown method ${given(request.method)}: this server answers initialize, ping, tools/list and tools/call.`,
    );
  };
  return server;
}

/** The protocol version an initialize asks for; a JSON-RPC error (invalid params) naming what is malformed. */
function initializeParams(params: JSONRPCRequest['params']): string {
  const invalid = (what: string) => new RpcError(ErrorCode.InvalidParams, `Invalid params of initialize: ${what}.`);
  const version = params?.['protocolVersion'];
  if (typeof version !== 'string')
    throw invalid(
      `protocolVersion must be an MCP version as text ("${LATEST_PROTOCOL_VERSION}"), got ${given(version)}`,
    );
  const capabilities = params?.['capabilities'];
  if (!isJsonObject(capabilities))
    throw invalid(`capabilities must be an object of the client's capabilities, got ${given(capabilities)}`);
  const client = params?.['clientInfo'];
  if (!isJsonObject(client) || typeof client['name'] !== 'string' || typeof client['version'] !== 'string')
    throw invalid(`clientInfo must be an object with the client's name and version as text, got ${given(client)}`);
  return version;
}

/**
 * The answer to initialize, as the SDK's: the version asked for when this server speaks it, else
 * its newest. The client's capabilities are not kept: this server never asks a client anything
 * (no sampling, roots or elicitation), and with none kept the SDK refuses any such request
 * before it is sent.
 */
function initializeResult(requested: string): InitializeResult {
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
    capabilities: CAPABILITIES,
    serverInfo: MCP_SERVER_INFO,
    instructions: INSTRUCTIONS,
  };
}

/** The tool's name and arguments of a tools/call; a JSON-RPC error (invalid params) naming what is malformed. */
function toolCallParams(params: JSONRPCRequest['params']): { name: string; args: Record<string, unknown> | undefined } {
  const invalid = (what: string) => new RpcError(ErrorCode.InvalidParams, `Invalid params of tools/call: ${what}.`);
  const name = params?.['name'];
  const args = params?.['arguments'];
  if (typeof name !== 'string')
    throw invalid(`name must be the tool's name as text (${toolNames.join(', ')}), got ${given(name)}`);
  if (args !== undefined && !isJsonObject(args))
    throw invalid(`arguments must be an object of the tool's arguments by name, got ${given(args)}`);
  return { name, args: args as Record<string, unknown> | undefined };
}

/**
 * One tool call: a JSON-RPC error (invalid params) for an unknown tool; a result flagged
 * isError, in one sentence, for arguments that fail the tool's schema or name nothing in the
 * data; else the tool's answer as a short text, the same data as JSON text (for clients that
 * read only text) and as structuredContent.
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
  const input = tools[name].input;
  const parsed = input.safeParse(args ?? {});
  if (!parsed.success) return refused(name, argumentIssues(parsed.error, Object.keys(input.shape)));
  let answer: Awaited<ReturnType<typeof runTool>>;
  try {
    answer = await runTool(index, name, parsed.data);
  } catch (error) {
    if (error instanceof ToolInputError) return refused(name, error.message);
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

/** A tool call refused for its arguments: a result flagged isError whose text names what is wrong. */
const refused = (name: string, what: string): CallToolResult => ({
  content: [{ type: 'text', text: `Invalid arguments for ${name}: ${what}` }],
  isError: true,
});
