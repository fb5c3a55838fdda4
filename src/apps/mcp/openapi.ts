// /mcp's part of the OpenAPI document (src/build/openapi.ts puts it in): its operation, the
// JSON-RPC messages it takes and answers, and its errors, stated from the bounds it enforces.
import { MCP_MAX_BODY_BYTES, MCP_MAX_DEPTH, MCP_METHODS } from './bounds.ts';
import { toolNames } from './tools.ts';

type Json = Record<string, unknown>;

/** The tag of /mcp's operation. */
export const MCP_TAG = {
  name: 'mcp',
  description:
    'The same data for AI assistants: a read-only Model Context Protocol server (Streamable HTTP, stateless, ' +
    'JSON responses) whose tools answer from the same prebuilt answers as /api/.',
};

/** A JSON-RPC error, as /mcp answers a request it cannot take. */
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string', description: 'What is wrong.' } },
    },
    id: { type: ['string', 'integer', 'null'] },
  },
};

/** One JSON-RPC message, as /mcp takes it. */
const JSON_RPC_REQUEST = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string', examples: ['tools/call'] },
    params: { type: 'object' },
  },
};

/** The answer to a JSON-RPC request: its result, or an error. */
const JSON_RPC_RESPONSE = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    result: { type: 'object', description: 'The answer: for tools/call, content and structuredContent.' },
    error: JSON_RPC_ERROR.properties.error,
  },
};

/**
 * The path item of /mcp: its one operation. `shared` are the document's references to the API's
 * own 401 and 429, which /mcp answers alike.
 */
export function mcpPathItem(shared: { unauthorized: Json; tooMany: Json }): Json {
  const rpcError = (description: string) => ({
    description,
    content: { 'application/json': { schema: JSON_RPC_ERROR } },
  });
  return {
    post: {
      operationId: 'postMcp',
      tags: [MCP_TAG.name],
      summary: 'One message of the Model Context Protocol (initialize, tools/list, tools/call ...)',
      description:
        `The tools: ${toolNames.join(', ')}, each read-only. A tool's records equal the API's answer to the same ` +
        'question. Stateless: no session, no event stream; only ' +
        `${MCP_METHODS} (other methods get 405 with \`Allow: ${MCP_METHODS}\`). A body is at most ` +
        `${MCP_MAX_BODY_BYTES} bytes, nested at most ${MCP_MAX_DEPTH} deep, one message (no batch). ` +
        'Every request counts once under the rate limit.',
      requestBody: { required: true, content: { 'application/json': { schema: JSON_RPC_REQUEST } } },
      responses: {
        '200': {
          description:
            'The JSON-RPC response: a result, or an error that names what is wrong (an unknown method or tool, ' +
            'malformed params). Arguments a tool cannot take (missing, wrong, a release or plot that does not ' +
            'exist) are a result flagged isError that names the argument and what it expects.',
          content: { 'application/json': { schema: JSON_RPC_RESPONSE } },
        },
        '202': { description: 'A notification or response, accepted: no body.' },
        '400': rpcError(
          `Not JSON, not one JSON-RPC message (a batch, or JSON that is no message), params that are not an ` +
            `object, or nested deeper than ${MCP_MAX_DEPTH}.`,
        ),
        '401': shared.unauthorized,
        '406': rpcError('Accept does not list both application/json and text/event-stream.'),
        '413': rpcError(`The body is over ${MCP_MAX_BODY_BYTES} bytes.`),
        '415': rpcError('Content-Type is not application/json.'),
        '429': shared.tooMany,
      },
    },
  };
}
