// MCP clients for the tests: the SDK's own Client over Streamable HTTP (against a runtime's
// /mcp) or over stdio (against `treefarm mcp --bundle`), and the API's answer to the same
// question, to compare a tool's records with.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolResult, McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type RawResponse, rawRequest } from './http.ts';

/** An SDK client connected to `${origin}/mcp` with the token (none: no Authorization header). */
export async function httpClient(origin: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'treefarm-tests', version: '1.0.0' });
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit: { headers } }));
  return client;
}

/** An SDK client connected to `server` in this process, over the SDK's in-memory transport. */
export async function memoryClient(server: Server, client = new Client({ name: 'treefarm-tests', version: '1.0.0' })) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** The JSON-RPC error a tool call gets: its code and message. */
export async function callError(
  client: Client,
  name: string,
  args?: Record<string, unknown>,
): Promise<{ code: number; message: string }> {
  try {
    await client.callTool({ name, arguments: args });
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`${name} answered ${JSON.stringify(args)} without an error`);
}

/** The JSON-RPC error a request of any shape gets (`params` sent as they are): its code and message. */
export async function requestError(
  client: Client,
  method: string,
  params?: unknown,
): Promise<{ code: number; message: string }> {
  try {
    await client.request({ method, params } as Parameters<Client['request']>[0], ResultSchema);
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`${method} answered ${JSON.stringify(params)} without an error`);
}

/** The text of a tool result flagged isError (arguments refused); throws when the call was not refused so. */
export async function refusal(client: Client, name: string, args: Record<string, unknown> | undefined) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [first, ...more] = result.content;
  if (result.isError !== true || first?.type !== 'text' || more.length > 0 || result.structuredContent)
    throw new Error(`${name} was not refused with one text: ${JSON.stringify(result)}`);
  return first.text;
}

/** A tool's structured answer; throws with the tool's text when the call was not a plain success. */
export async function structured(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError || !result.structuredContent) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown> & { records?: unknown[] };
}

/** The first text of a tool's answer: what a person reads. */
export async function textOf(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** The `data` of the API's answer to GET `path` (status and all), for comparing with a tool's records. */
export async function apiAnswer(origin: string, token: string, path: string) {
  const response = await fetch(new URL(path, origin), { headers: { Authorization: `Bearer ${token}` } });
  const envelope = (await response.json()) as { message: string; data?: unknown[] };
  return { status: response.status, message: envelope.message, data: envelope.data ?? [] };
}

/** One JSON-RPC message (or any body) POSTed to /mcp as an SDK client would send it. */
export function postMcp(
  origin: string,
  body: string,
  { token, headers = {} }: { token?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(new URL('/mcp', origin), {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
      ...headers,
    },
    body,
  });
}

/**
 * A POST /mcp whose head declares a body of `length` bytes, on a raw connection; `sent`: the
 * body follows (`length` bytes of x), else none of it is sent, to see what the server answers
 * without reading it.
 */
export function declaredMcpBody(
  origin: string,
  length: number,
  { token, sent = false }: { token?: string; sent?: boolean } = {},
): Promise<RawResponse> {
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['Accept', 'application/json, text/event-stream'],
    ['Content-Length', String(length)],
  ];
  if (token !== undefined) headers.push(['Authorization', `Bearer ${token}`]);
  const body = sent ? Buffer.alloc(length, 'x') : undefined;
  return rawRequest(origin, { method: 'POST', target: '/mcp', headers, body }, 30_000);
}

/** A tools/call message, as JSON text. */
export const toolCall = (name: string, args: Record<string, unknown>, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
