// MCP clients for the tests, of each kind an assistant may use: the official v2 client
// (@modelcontextprotocol/client) pinned to 2026-07-28 ("modern") or in its legacy mode (the
// 2025 initialize), and the v1 SDK's client ("v1"), over Streamable HTTP (against a runtime's
// /mcp), over stdio (against `treefarm mcp --bundle`) or in memory; and the API's answer to
// the same question, to compare a tool's records with.
import {
  Client as V2Client,
  InMemoryTransport,
  ProtocolError,
  StreamableHTTPClientTransport as V2HttpTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ListResourcesResultSchema,
  McpError,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/server';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { exitOf } from './child-output.ts';
import { type RawResponse, rawRequest } from './http.ts';

/** Any result, for the official client's request() (a schema it reads as Standard Schema). */
const ANY_RESULT = z.looseObject({});

/** The clients every MCP test runs with: each era of the official SDK, and the v1 SDK's client. */
export const CLIENT_KINDS = ['modern', 'legacy', 'v1'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];
export const MODERN_VERSION = '2026-07-28';

type Params = Record<string, unknown>;
/** A tool as tools/list gives it. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Params & { type: string };
  outputSchema?: Params & { type: string };
  annotations?: Params;
}
/** What the tests ask of a client: the methods the v1 and v2 clients share, as plain JSON. */
export interface McpClient {
  listTools(): Promise<{ tools: ListedTool[] }>;
  callTool(params: { name: string; arguments?: Params }): Promise<unknown>;
  listResources(params?: { cursor?: string }): Promise<{ resources: Params[]; nextCursor?: string }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Params[] }>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; text?: string; mimeType?: string }[] }>;
  listPrompts(): Promise<{ prompts: Params[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: Params[] }>;
  complete(params: Params): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  close(): Promise<void>;
}

const info = { name: 'treefarm-tests', version: '1.0.0' };

/** The protocol's eras, as a message of each is sent: 2026-07-28 ("modern") and 2025-11-25 ("legacy"). */
export const ERAS = ['modern', 'legacy'] as const;
export type Era = (typeof ERAS)[number];
/** The envelope a 2026-07-28 request carries in its `_meta`: its version, client and capabilities. */
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': info,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * A request as a client of `era` sends it: a 2026-07-28 one with its envelope in `_meta` (merged
 * into the `_meta` of `params` when that is an object; left as it is when it is anything else).
 */
export function eraRequest(era: Era, method: string, params: Record<string, unknown> = {}, id: string | number = 1) {
  const meta = params['_meta'];
  const modernMeta = meta === undefined ? MODERN_META : typeof meta === 'object' ? { ...MODERN_META, ...meta } : meta;
  return { jsonrpc: '2.0', id, method, params: era === 'legacy' ? params : { ...params, _meta: modernMeta } };
}

/** The HTTP headers a client of `era` sends with a request for `method`. */
export const eraHeaders = (era: Era, method: string): Record<string, string> =>
  era === 'modern' ? { 'Mcp-Protocol-Version': MODERN_VERSION, 'Mcp-Method': method } : {};
const v2Client = (kind: Exclude<ClientKind, 'v1'>) =>
  new V2Client(info, { versionNegotiation: { mode: kind === 'modern' ? { pin: MODERN_VERSION } : 'legacy' } });

/** A client of `kind` connected to `${origin}/mcp` with the token (none: no Authorization header). */
export async function httpClient(origin: string, token: string | undefined, kind: ClientKind = 'v1') {
  const url = new URL('/mcp', origin);
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  if (kind === 'v1') {
    const client = new V1Client(info);
    await client.connect(new V1HttpTransport(url, { requestInit: { headers } }));
    return client as unknown as McpClient;
  }
  const client = v2Client(kind);
  await client.connect(new V2HttpTransport(url, { requestInit: { headers } }));
  return client as unknown as McpClient;
}

/** A client of `kind` connected over stdio to `command args` (stderr ignored). */
export async function stdioClient(command: string, args: string[], kind: ClientKind = 'v1') {
  if (kind === 'v1') {
    const client = new V1Client(info);
    await client.connect(new V1StdioTransport({ command, args, stderr: 'ignore' }));
    return client as unknown as McpClient;
  }
  const client = v2Client(kind);
  await client.connect(new V2StdioTransport({ command, args, stderr: 'ignore' }));
  return client as unknown as McpClient;
}

/** The official client connected to `server` in this process, over the SDK's in-memory transport (2025 era). */
export async function memoryClient(server: Server, client = new V2Client(info)) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client as unknown as McpClient & V2Client;
}

/** An error of a JSON-RPC answer, from either SDK: its code and message. */
function rpcErrorOf(error: unknown): { code: number; message: string } | undefined {
  if (error instanceof McpError || error instanceof ProtocolError) return { code: error.code, message: error.message };
  return undefined;
}

/** The JSON-RPC error a tool call gets: its code and message. */
export async function callError(
  client: McpClient,
  name: string,
  args?: Record<string, unknown>,
): Promise<{ code: number; message: string }> {
  try {
    await client.callTool({ name, arguments: args });
  } catch (error) {
    const rpc = rpcErrorOf(error);
    if (rpc) return rpc;
    throw error;
  }
  throw new Error(`${name} answered ${JSON.stringify(args)} without an error`);
}

/**
 * One page of resources/list, as the server sends it (the official client's listResources()
 * without a cursor walks every page itself).
 */
export async function resourcePage(client: McpClient, cursor?: string) {
  const request = (client as unknown as { request: (message: unknown, schema: unknown) => Promise<unknown> }).request;
  const params = cursor === undefined ? {} : { cursor };
  const schema = client instanceof V1Client ? ListResourcesResultSchema : ANY_RESULT;
  return (await request.call(client, { method: 'resources/list', params }, schema)) as {
    resources: { uri: string }[];
    nextCursor?: string;
  };
}

/** The JSON-RPC error a request of any shape gets (`params` sent as they are): its code and message. */
export async function requestError(
  client: McpClient,
  method: string,
  params?: unknown,
): Promise<{ code: number; message: string }> {
  try {
    // Both SDKs' clients take a method, params and a result schema (the v1 one its own).
    const request = (client as unknown as { request: (message: unknown, schema?: unknown) => Promise<unknown> })
      .request;
    await request.call(client, { method, params }, client instanceof V1Client ? ResultSchema : ANY_RESULT);
  } catch (error) {
    const rpc = rpcErrorOf(error);
    if (rpc) return rpc;
    throw error;
  }
  throw new Error(`${method} answered ${JSON.stringify(params)} without an error`);
}

/** The text of a tool result flagged isError (arguments refused); throws when the call was not refused so. */
export async function refusal(client: McpClient, name: string, args: Record<string, unknown> | undefined) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [first, ...more] = result.content;
  if (result.isError !== true || first?.type !== 'text' || more.length > 0 || result.structuredContent)
    throw new Error(`${name} was not refused with one text: ${JSON.stringify(result)}`);
  return first.text;
}

/** A tool's structured answer; throws with the tool's text when the call was not a plain success. */
export async function structured(client: McpClient, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError || !result.structuredContent) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown> & { records?: unknown[] };
}

/** Every page of a tool's answer, in order: the first page, then one call a nextCursor with the same arguments. */
export async function everyPage(client: McpClient, name: string, args: Record<string, unknown>) {
  const pages = [await structured(client, name, args)];
  for (let cursor = pages[0]?.['nextCursor']; typeof cursor === 'string'; cursor = pages.at(-1)?.['nextCursor'])
    pages.push(await structured(client, name, { ...args, cursor }));
  return pages;
}

/** The first text of a tool's answer: what a person reads. */
export async function textOf(client: McpClient, name: string, args: Record<string, unknown>): Promise<string> {
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

/** An answer read from a stdio server: a JSON-RPC response. */
export type StdioAnswer = { id?: string | number | null; result?: unknown; error?: { code: number; message: string } };

/**
 * `command args` spoken to line by line, as a client that sends what it likes: `send` writes
 * messages (or lines of any text) and gives every answer that came before the answer to a ping
 * sent after them, so a message left unanswered shows as missing, without waiting on a clock.
 */
export function rawStdio(command: string, args: string[]) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const answers: StdioAnswer[] = [];
  let exited = false;
  let arrived: () => void = () => {};
  createInterface({ input: child.stdout }).on('line', (line) => {
    answers.push(JSON.parse(line) as StdioAnswer);
    arrived();
  });
  child.once('exit', () => {
    exited = true;
    arrived();
  });
  let pings = 0;
  return {
    async send(...messages: (string | object)[]): Promise<StdioAnswer[]> {
      const ping = `ping-${++pings}`;
      const start = answers.length;
      for (const message of [...messages, { jsonrpc: '2.0', id: ping, method: 'ping' }])
        child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
      while (!answers.slice(start).some((answer) => answer.id === ping)) {
        if (exited) throw new Error(`${command} exited before answering: ${JSON.stringify(answers.slice(start))}`);
        await new Promise<void>((resolve) => {
          arrived = resolve;
        });
      }
      return answers.splice(start).filter((answer) => answer.id !== ping);
    },
    async close() {
      child.stdin.end();
      await exitOf(child);
    },
  };
}
