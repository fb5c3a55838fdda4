// What a message to the MCP server must be, and the one sentence that names what is wrong with
// one, for every way in: POST /mcp (src/apps/mcp/answer.ts) and `treefarm mcp --bundle` over stdio
// (src/client/mcp.ts) read each message through readMessage before the SDK sees it, and the
// server (server.ts) checks the params of the methods the SDK answers itself through
// paramsFault before the SDK does. Left to the SDK, a malformed message is dropped unanswered
// (stdio) or refused naming nothing (HTTP), and malformed params are answered with zod's
// issue list as an internal error. The shapes are the SDK's own (its spec type schemas); the
// words are ours.
import { ProtocolErrorCode, specTypeSchemas, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { isJsonObject } from '../../contract/json-object.ts';
import { MCP_MAX_DEPTH } from './bounds.ts';
import { given } from './tool-schemas.ts';

/** The newest version an initialize negotiates (2026-07-28 has no initialize). */
const LEGACY_VERSION = '2025-11-25';

/** What makes a message one this server does not read: a JSON-RPC error's code and message, and the id if known. */
export interface MessageFault {
  code: number;
  message: string;
  id?: string | number;
}

/** A message as read: the parsed JSON-RPC message, or the fault that names what is wrong with it. */
export type ReadMessage = { message: Record<string, unknown> } | { fault: MessageFault };

/** The JSON-RPC error answer to a fault, as sent (its id null when the request's is unknown or unread). */
export const faultAnswer = ({ code, message, id }: MessageFault) => ({
  jsonrpc: '2.0' as const,
  error: { code, message },
  id: id ?? null,
});

/** The text of one message (an HTTP body, a line of stdio), read as one JSON-RPC message this server answers. */
export function readMessage(text: string): ReadMessage {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return { fault: parseError(error instanceof SyntaxError ? error.message : 'the body could not be read') };
  }
  if (Array.isArray(message))
    return {
      fault: {
        code: ProtocolErrorCode.InvalidRequest,
        message: 'Batches are not accepted (MCP 2025-06-18 removed JSON-RPC batching): send one message per request.',
      },
    };
  if (nestedDeeperThan(message, MCP_MAX_DEPTH))
    return {
      fault: {
        code: ProtocolErrorCode.InvalidRequest,
        message: `The message nests deeper than ${MCP_MAX_DEPTH} levels.`,
      },
    };
  const fault = messageFault(message);
  return fault ? { fault } : { message: message as Record<string, unknown> };
}

/** A body or line that is no JSON: -32700, saying why. */
export const parseError = (why: string): MessageFault => ({
  code: ProtocolErrorCode.ParseError,
  // V8 cuts a long body's quote with "...", which would run into the sentence's period.
  message: `Parse error: the body is not JSON (${why.replaceAll('...', '…')}).`,
});

/**
 * What makes JSON no JSON-RPC message this server reads, named; undefined when it is one (a
 * request or notification; a response, which a client sends no server of this kind, is left
 * to the transport).
 */
function messageFault(message: unknown): MessageFault | undefined {
  const invalid = (what: string) => ({ code: ProtocolErrorCode.InvalidRequest, message: `Invalid request: ${what}.` });
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
  const known = { id: id as string | number | undefined };
  if (params !== undefined && !isJsonObject(params))
    return { ...known, ...invalidParamsFault(method, `params must be an object, got ${given(params)}`) };
  // The rest of the shape every transport checks (params._meta, no other members), by the SDK's schema.
  const issue = firstIssue(id === undefined ? 'JSONRPCNotification' : 'JSONRPCRequest', message);
  if (issue === undefined) return undefined;
  const [first, ...path] = issue.path;
  if (first === 'params') return { ...known, ...invalidParamsFault(method, issueText(issue, path, params, 'params')) };
  return { ...known, ...invalid(issueText(issue, issue.path, message, 'the message')) };
}

/** The SDK's schema of each request it checks itself before a handler of ours sees it. */
const CHECKED_BY_THE_SDK: Readonly<Record<string, keyof typeof specTypeSchemas>> = {
  initialize: 'InitializeRequest',
  ping: 'PingRequest',
  'server/discover': 'DiscoverRequest',
  'tools/list': 'ListToolsRequest',
  'prompts/list': 'ListPromptsRequest',
  'resources/list': 'ListResourcesRequest',
  'resources/templates/list': 'ListResourceTemplatesRequest',
};

/**
 * What is malformed in the params of a request the SDK answers or checks itself (initialize,
 * the lists), as one sentence of a JSON-RPC error -32602; undefined when they are well formed
 * or the method's params are ours to check.
 */
export function paramsFault(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const schema = CHECKED_BY_THE_SDK[method];
  const issue = schema && firstIssue(schema, params === undefined ? { method } : { method, params });
  if (issue === undefined) return undefined;
  return invalidParamsFault(method, issueText(issue, issue.path.slice(1), params, 'params')).message;
}

/** A JSON-RPC error -32602 naming the method and what is wrong with its params. */
export const invalidParamsFault = (method: string, what: string) => ({
  code: ProtocolErrorCode.InvalidParams,
  message: `Invalid params of ${method}: ${what}.`,
});

/** What a field must be, in words, where the type alone says too little. */
const FIELDS: Readonly<Record<string, string>> = {
  cursor: 'the nextCursor a page of this list gave, as text',
  protocolVersion: `an MCP version as text ("${LEGACY_VERSION}")`,
  capabilities: "an object of the client's capabilities",
  clientInfo: "an object with the client's name and version as text",
  '_meta.progressToken': 'text or a whole number',
};
/** A JSON type in words (the `expected` of the SDK's schema issues). */
const TYPES: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
};

/** The first issue of a spec type's schema with a value, its path as keys; undefined when the value fits. */
function firstIssue(type: keyof typeof specTypeSchemas, value: unknown) {
  const result = specTypeSchemas[type]['~standard'].validate(value);
  const [issue] = result.issues ?? [];
  if (issue === undefined) return undefined;
  const path = (issue.path ?? []).map((step) => String(typeof step === 'object' ? step.key : step));
  return { ...(issue as SchemaIssue), path };
}

/** What the SDK's schemas (zod's) add to a Standard Schema issue. */
interface SchemaIssue extends StandardSchemaV1.Issue {
  code?: string;
  expected?: string;
  keys?: readonly string[];
}

/**
 * An issue in one sentence's words: the field at `path` within `root` (named `rootName`), what
 * it must be and what it was.
 */
function issueText(issue: SchemaIssue, path: readonly string[], root: unknown, rootName: string): string {
  const field = path.length === 0 ? rootName : path.join('.');
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const members = issue.keys.map((key) => JSON.stringify(key)).join(', ');
    return `unknown member${issue.keys.length > 1 ? 's' : ''} ${members} in ${field}`;
  }
  const what = FIELDS[field] ?? TYPES[issue.expected ?? ''];
  const value = path.reduce<unknown>((at, key) => (isJsonObject(at) ? at[key] : undefined), root);
  return what === undefined
    ? `${field} is malformed (${issue.message}), got ${given(value)}`
    : `${field} must be ${what}, got ${given(value)}`;
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
