// POST /mcp: the MCP server (src/apps/mcp) over Streamable HTTP, stateless, JSON responses,
// for a request the core has let through (token checked, counted: see McpHandOff in core.ts).
// Web-standard Request -> Response, so the Node server and the Worker answer alike. Before the
// SDK sees a message, the request is held to bounds and each fault is answered with a
// JSON-RPC error that names it: a method other than POST, the wrong content type, a body over
// MCP_MAX_BODY_BYTES, then what the stdio server refuses alike (src/apps/mcp/messages.ts):
// no JSON, a batch, nesting past MCP_MAX_DEPTH, JSON that is no JSON-RPC message or whose
// params are no object or a malformed `_meta` (the SDK would refuse it naming nothing). Then
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
import { MCP_MAX_BODY_BYTES, mcpNotAllowed } from './bounds.ts';
import { faultAnswer, type MessageFault, parseError, readMessage } from './messages.ts';
import { createMcpServer } from './server.ts';
import { LOCAL_ORIGIN } from '../../contract/paths.ts';
import type { RouteIndex } from '../../contract/resolve.ts';
import type { HeaderRecord } from '../../edge/decision.ts';

/** The Response to a request to /mcp; `headers` are the ones every answer of /mcp carries (McpHandOff). */
export async function answerMcp(request: Request, index: RouteIndex, headers: HeaderRecord): Promise<Response> {
  if (request.method !== 'POST') return mcpNotAllowed(request.method, headers);
  const type = request.headers.get('content-type');
  if (!isJsonContentType(type))
    return rpcError(
      415,
      ErrorCode.InvalidRequest,
      `Content-Type must be application/json, got ${type === null ? 'none' : JSON.stringify(type)}.`,
      headers,
    );
  let text: string;
  try {
    const body = await readRequestBody(request, MCP_MAX_BODY_BYTES);
    if (body.tooLarge)
      return rpcError(
        413,
        ErrorCode.InvalidRequest,
        `The body is over ${MCP_MAX_BODY_BYTES} bytes: send one short JSON-RPC message.`,
        headers,
      );
    text = body.text;
  } catch {
    return faultResponse(parseError('the body could not be read'), headers);
  }
  const read = readMessage(text);
  if ('fault' in read) return faultResponse(read.fault, headers);
  const { message } = read;
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
const rpcError = (status: number, code: number, message: string, headers: HeaderRecord) =>
  faultResponse({ code, message }, headers, status);

/** A message refused before any server sees it (messages.ts): in a 400 unless `status` says otherwise. */
function faultResponse(fault: MessageFault, headers: HeaderRecord, status = 400): Response {
  return new Response(JSON.stringify(faultAnswer(fault)), {
    status,
    headers: { ...headers, 'Content-Type': 'application/json' },
  });
}
