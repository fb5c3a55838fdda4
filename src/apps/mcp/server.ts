// The MCP server of the tools (tools.ts), resources (resources.ts) and prompts (prompts.ts)
// over one RouteIndex: the online edge (src/apps/mcp/answer.ts, one server a request, stateless) and
// the offline stdio server (src/client/mcp.ts) both make it here, on the SDK's v2 Server,
// which speaks both eras (2026-07-28 without initialize; 2025-11-25 and older after it). Errors
// follow the version in use: a malformed request, an unknown method, tool or prompt is a
// JSON-RPC error; arguments that fail a tool's schema or name nothing in the data are a tool
// result flagged isError, naming the argument and what it expects, so the model can correct
// itself. The low-level Server rather than McpServer, so each message is ours (one sentence,
// where the SDK's own checks would answer with zod's issue list) and each list made once.
import {
  type CallToolResult,
  type CompleteResult,
  type GetPromptResult,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Result,
  Server,
  type ServerContext,
  type Tool,
  type jsonSchemaValidator,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CACHE_FOUND_SECONDS } from '../../contract/headers.ts';
import { isJsonObject } from '../../contract/json-object.ts';
import type { RouteIndex } from '../../contract/resolve.ts';
import { invalidParamsFault, paramsFault } from './messages.ts';
import { portableSchema } from './portable.ts';
import {
  completePrompt,
  completeResource,
  getPrompt,
  isPromptName,
  PromptArgumentError,
  promptList,
  promptNameFault,
} from './prompts.ts';
import { CursorError } from './pages.ts';
import {
  isResourceReference,
  RESOURCE_FORMS,
  readResource,
  ResourceMissingError,
  resourcePage,
  resourceTemplates,
} from './resources.ts';
import { argumentIssues, given, isToolName, runTool, ToolInputError, toolNames, tools } from './tools.ts';
import { readView, toolViewMeta, viewAt } from './views.ts';

export const MCP_SERVER_INFO = { name: 'treefarm-data', title: 'Tree farm data', version: '1.0.0' } as const;

/** Lists that never change while a server runs; completion of prompt and template arguments. */
const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false, subscribe: false },
  prompts: { listChanged: false },
  completions: {},
};

/**
 * The answers change only with a data release (a deploy), so a client may keep a list or a
 * read as long as the API's own answers are kept (Cache-Control: private, max-age=300):
 * private, as they are behind a token.
 */
const CACHE_HINT = { ttlMs: CACHE_FOUND_SECONDS * 1000, cacheScope: 'private' } as const;
const CACHE_HINTS = Object.fromEntries(
  ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read', 'server/discover'].map(
    (method) => [method, CACHE_HINT],
  ),
);

const INSTRUCTIONS =
  'Reference data of a tree-farming game: its trees, cutters, gifts, plots, storages and vehicles, each with ' +
  "the game's published figures (money in in-game dollars, times in seconds, speeds in percent), and the planner " +
  'that ranks the trees a player can reach by profit per hour. Every tool is read-only. Find a record by name, ' +
  'alias or level with find_record (a misspelt name gets the one record it is near, or the nearest names to ' +
  'choose from), list a kind with list_records, and work out what a tree earns with tree_economics or what to ' +
  'plant next with plan. Long lists come a page at a time (limit, and the nextCursor as cursor). Every record ' +
  'and release is also a resource (treefarm://<kind>/<slug>, treefarm://releases/<id>).';

/**
 * The server only answers: it never asks a client to fill a form (elicitation), the one use the
 * SDK has for a JSON Schema validator. Passing this one keeps the SDK from building its
 * default (Ajv) for every request, which costs CPU and compiles code at run time.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'this server asks no client for input' }),
};

let listed: Tool[] | undefined;

/** The tool list, made from the schemas once, portable (no type arrays, every field typed). */
export function toolList(): Tool[] {
  listed ??= toolNames.map((name): Tool => {
    const { title, description, input, output } = tools[name];
    const meta = toolViewMeta(name);
    return {
      ...(meta === undefined ? {} : { _meta: meta }),
      name,
      title,
      description,
      // Draft 7, which every JSON Schema validator reads (the v1 SDK client's Ajv among them): a
      // [min, max] range is a tuple, which later drafts write in a way draft 7 misreads.
      inputSchema: portableSchema(z.toJSONSchema(input, { io: 'input', target: 'draft-7' })) as Tool['inputSchema'],
      outputSchema: portableSchema(z.toJSONSchema(output, { io: 'output', target: 'draft-7' })) as Tool['outputSchema'],
      annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    };
  });
  return listed;
}

const invalidParams = (method: string, what: string) => {
  const { code, message } = invalidParamsFault(method, what);
  return new ProtocolError(code, message);
};

type Handler = (request: JSONRPCRequest, context: ServerContext) => Promise<Result>;

/**
 * The SDK's Server, but the params of each request it checks itself (initialize, the lists:
 * messages.ts) are checked first, so a malformed one is -32602 in one sentence where the SDK
 * would answer -32603 with zod's issue list. Every handler the SDK keeps passes through
 * _wrapHandler, its own hook for subclasses, the handlers it makes itself included.
 */
class CheckedServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, context) => {
      const fault = paramsFault(request.method, request.params);
      if (fault !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, fault);
      return wrapped(request, context);
    };
  }
}

/** An MCP server of the tools, resources and prompts, answering from `index`; wiki links on `origin`. */
export function createMcpServer(index: RouteIndex, origin: string): Server {
  const server = new CheckedServer(MCP_SERVER_INFO, {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
    cacheHints: CACHE_HINTS,
  });
  // One page holds every tool, prompt and template: a cursor has nothing more to give.
  server.setRequestHandler('tools/list', () => ({ tools: toolList() }));
  server.setRequestHandler('prompts/list', () => ({ prompts: promptList() }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: resourceTemplates() }));
  server.setRequestHandler('resources/list', async (request) => {
    try {
      return await resourcePage(index, request.params?.cursor);
    } catch (error) {
      if (error instanceof CursorError) throw invalidParams('resources/list', error.message);
      throw error;
    }
  });
  // The methods whose params are ours to check are answered here, not through
  // setRequestHandler: the SDK would check them against its own schemas first and answer a
  // malformed one (`arguments: []`, no `name`) with zod's issue list, where one sentence is due.
  server.fallbackRequestHandler = async (request: JSONRPCRequest) => {
    const params = request.params ?? {};
    if (request.method === 'tools/call') {
      const { name, args } = toolCallParams(params);
      return callTool(index, name, args);
    }
    if (request.method === 'resources/read') return read(index, params, origin);
    if (request.method === 'prompts/get') return prompt(index, params, origin);
    if (request.method === 'completion/complete') return complete(index, params);
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Unknown method ${given(request.method)}: this server answers server/discover, initialize, ping, ` +
        'tools/list, tools/call, resources/list, resources/templates/list, resources/read, prompts/list, ' +
        'prompts/get and completion/complete.',
    );
  };
  return server;
}

type Params = NonNullable<JSONRPCRequest['params']>;

/** The tool's name and arguments of a tools/call; a JSON-RPC error (invalid params) naming what is malformed. */
function toolCallParams(params: Params): { name: string; args: Record<string, unknown> | undefined } {
  const name = params['name'];
  const args = params['arguments'];
  if (typeof name !== 'string')
    throw invalidParams(
      'tools/call',
      `name must be the tool's name as text (${toolNames.join(', ')}), got ${given(name)}`,
    );
  if (args !== undefined && !isJsonObject(args))
    throw invalidParams(
      'tools/call',
      `arguments must be an object of the tool's arguments by name, got ${given(args)}`,
    );
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
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
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
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${name} could not read the data to answer; try again later.`,
    );
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
  content: [{ type: 'text', text: `Invalid arguments for ${name}: ${what}.` }],
  isError: true,
});

/** resources/read: the resource's JSON; a URI that names nothing is -32602 naming it (as the protocol says). */
async function read(index: RouteIndex, params: Params, origin: string): Promise<ReadResourceResult> {
  const uri = params['uri'];
  if (typeof uri !== 'string')
    throw invalidParams('resources/read', `uri must be a resource's URI as text, got ${given(uri)}`);
  const view = viewAt(uri);
  const page = view === undefined ? undefined : await readView(index, view);
  if (page !== undefined) return { contents: [page] };
  try {
    return { contents: [await readResource(index, uri, origin)] };
  } catch (error) {
    if (error instanceof ResourceMissingError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    throw error;
  }
}

/** prompts/get: the prompt's messages; an unknown prompt or arguments that do not fit it are -32602. */
async function prompt(index: RouteIndex, params: Params, origin: string): Promise<GetPromptResult> {
  const name = params['name'];
  const args = params['arguments'] ?? {};
  if (typeof name !== 'string' || !isPromptName(name))
    throw invalidParams('prompts/get', `name ${promptNameFault(name)}`);
  if (!isJsonObject(args) || Object.values(args).some((value) => typeof value !== 'string'))
    throw invalidParams('prompts/get', `arguments must be an object of texts by name, got ${given(args)}`);
  try {
    return await getPrompt(index, name, args as Record<string, string>, origin);
  } catch (error) {
    if (error instanceof PromptArgumentError) throw invalidParams('prompts/get', error.message);
    throw error;
  }
}

/**
 * completion/complete: values for a prompt's argument or a template's variable, from the data;
 * a reference to no prompt, template or resource is -32602 (the 2025-11-25 completion rules).
 */
async function complete(index: RouteIndex, params: Params): Promise<CompleteResult> {
  const ref = params['ref'];
  const argument = params['argument'];
  const context = isJsonObject(params['context']) ? params['context']['arguments'] : undefined;
  if (!isJsonObject(argument) || typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string')
    throw invalidParams('completion/complete', `argument must be {"name", "value"} as texts, got ${given(argument)}`);
  const known = isJsonObject(context) ? (context as Record<string, string>) : {};
  if (isJsonObject(ref) && ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') {
    if (!isPromptName(ref['name']))
      throw invalidParams('completion/complete', `ref.name ${promptNameFault(ref['name'])}`);
    return { completion: await completePrompt(index, ref['name'], argument['name'], argument['value'], known) };
  }
  if (isJsonObject(ref) && ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') {
    if (!(await isResourceReference(index, ref['uri'])))
      throw invalidParams(
        'completion/complete',
        `ref.uri ${given(ref['uri'])} is no URI template or resource's URI: the resources are ${RESOURCE_FORMS}`,
      );
    return { completion: await completeResource(index, ref['uri'], argument['name'], argument['value']) };
  }
  throw invalidParams(
    'completion/complete',
    `ref must be {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"}, got ${given(ref)}`,
  );
}
