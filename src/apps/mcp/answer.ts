// POST /mcp: the MCP server (src/apps/mcp) over Streamable HTTP, stateless, JSON responses,
// for a request the core has let through (token checked, counted: see McpHandOff in core.ts).
// Web-standard Request -> Response, so the Node server and the Worker answer alike. Before the
// SDK sees a message, the request is held to bounds and each fault is answered with a
// JSON-RPC error that names it: a method other than POST, a body that is not JSON or over
// MCP_MAX_BODY_BYTES, nesting past MCP_MAX_DEPTH, a batch, JSON that is no JSON-RPC message
// (the SDK would call it a parse error, naming nothing), malformed initialize params. Then
// the era decides: a 2026-07-28 request (its envelope in `_meta`) goes to the SDK's
// createMcpHandler, a 2025 one to a transport of its own. One server a request: nothing is
// kept between requests.
import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpHttpHandler,
  ProtocolErrorCode as ErrorCode,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { MCP_MAX_BODY_BYTES, MCP_MAX_DEPTH, mcpNotAllowed } from './bounds.ts';
import { createMcpServer, initializeFault } from './server.ts';
import { given } from './tools.ts';
import { isJsonObject } from '../../contract/json-object.ts';
import { LOCAL_ORIGIN } from '../../contract/paths.ts';
import type { RouteIndex } from '../../contract/resolve.ts';

type Headers = Readonly<Record<string, string>>;

/** The Response to a request to /mcp; `headers` are the ones every answer of /mcp carries (McpHandOff). */
export async function answerMcp(request: Request, index: RouteIndex, headers: Headers): Promise<Response> {
  if (request.method !== 'POST') return mcpNotAllowed(request.method, headers);
  const type = request.headers.get('content-type');
  if (!isJsonContentType(type))
    return rpcError(
      415,
      ErrorCode.InvalidRequest,
      `Content-Type must be application/json, got ${type === null ? 'none' : JSON.stringify(type)}.`,
      headers,
    );
  let message: unknown;
  try {
    const body = await readRequestBody(request, MCP_MAX_BODY_BYTES);
    if (body.tooLarge)
      return rpcError(
        413,
        ErrorCode.InvalidRequest,
        `The body is over ${MCP_MAX_BODY_BYTES} bytes: send one short JSON-RPC message.`,
        headers,
      );
    message = JSON.parse(body.text);
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : 'the body could not be read';
    return rpcError(400, ErrorCode.ParseError, `Parse error: the body is not JSON (${why}).`, headers);
  }
  if (Array.isArray(message))
    return rpcError(
      400,
      ErrorCode.InvalidRequest,
      'Batches are not accepted (MCP 2025-06-18 removed JSON-RPC batching): send one message per request.',
      headers,
    );
  if (nestedDeeperThan(message, MCP_MAX_DEPTH))
    return rpcError(400, ErrorCode.InvalidRequest, `The message nests deeper than ${MCP_MAX_DEPTH} levels.`, headers);
  const fault = messageFault(message);
  if (fault) return rpcError(fault.status ?? 400, fault.code, fault.message, headers, fault.id);
  const answer = (await isLegacyRequest(request, message))
    ? await answerLegacy(request, message, index)
    : await modernHandler(index).fetch(request, { parsedBody: message });
  const merged = new Headers(answer.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(answer.body, { status: answer.status, headers: merged });
}

/**
 * A 2025-era request (no 2026-07-28 envelope in `_meta`): one server and transport, answered
 * in JSON (the SDK's own stateless fallback would answer in an event stream). Not closed
 * after: with JSON responses the transport holds no stream or timer once it has answered, so
 * the pair is simply dropped; closing would abort the handler's signal for nothing.
 */
async function answerLegacy(request: Request, message: unknown, index: RouteIndex) {
  const server = createMcpServer(index, originOf(request));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: message });
}

/**
 * The 2026-07-28 handler of an index, made once: it makes a server for each request (the
 * protocol is stateless), its wiki links on the request's origin, and answers in JSON, never
 * an event stream.
 */
const modern = new WeakMap<RouteIndex, McpHttpHandler>();
function modernHandler(index: RouteIndex): McpHttpHandler {
  const made =
    modern.get(index) ??
    createMcpHandler((context) => createMcpServer(index, originOf(context.requestInfo)), {
      legacy: 'reject',
      responseMode: 'json',
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
  modern.set(index, made);
  return made;
}

/** The origin a request came to (where its wiki links point); none known: the local site's. */
const originOf = (request: Request | undefined) => (request ? new URL(request.url).origin : LOCAL_ORIGIN);

/** A JSON-RPC error, in an HTTP error status; its id null when the request's is unknown or unread. */
function rpcError(status: number, code: number, message: string, headers: Headers, id?: string | number): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: id ?? null }), {
    status,
    headers: { ...headers, 'Content-Type': 'application/json' },
  });
}

/** A fault of a message, answered before any server sees it: in a 400 unless `status` says otherwise. */
interface Fault {
  code: number;
  message: string;
  id?: string | number;
  status?: number;
}

/**
 * What makes JSON no JSON-RPC message this server reads, named; undefined when it is one (a
 * request or notification; a response, which a client sends no server of this kind, is left
 * to the transport).
 */
function messageFault(message: unknown): Fault | undefined {
  const invalid = (what: string) => ({ code: ErrorCode.InvalidRequest, message: `Invalid request: ${what}.` });
  if (!isJsonObject(message))
    return invalid(`the body is ${given(message)}, not a JSON-RPC message (an object with "jsonrpc": "2.0")`);
  const { jsonrpc, method, id, params } = message;
  if (jsonrpc !== '2.0') return invalid(`"jsonrpc" must be "2.0", got ${given(jsonrpc)}`);
  if (method === undefined)
    return 'result' in message || 'error' in message
      ? undefined
      : invalid('a JSON-RPC message has a "method" (a request or notification), or a "result" or "error" (a response)');
  if (typeof method !== 'string') return invalid(`"method" must be text, got ${given(method)}`);
  if (id !== undefined && typeof id !== 'string' && !Number.isInteger(id))
    return invalid(`"id" must be text or a whole number, got ${given(id)}`);
  if (params !== undefined && !isJsonObject(params))
    return {
      code: ErrorCode.InvalidParams,
      message: `Invalid params of ${method}: params must be an object, got ${given(params)}.`,
      id: id as string | number | undefined,
    };
  const initialize = method === 'initialize' ? initializeFault(params) : undefined;
  if (initialize !== undefined)
    return { code: ErrorCode.InvalidParams, message: initialize, id: id as string | number | undefined, status: 200 };
  return undefined;
}

/** Whether arrays and objects nest deeper than `limit`, walked without recursion (no stack to overflow). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
