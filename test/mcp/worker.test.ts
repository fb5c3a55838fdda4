// POST /mcp in workerd (wrangler dev), driven by the SDK's own client: the same tools as on the
// Node server (http.test.ts covers each one there), so here the few rules a runtime could break:
// the tool list, a find_record equal to the API's answer, a miss with suggestions, errors and
// refusals, a body over the bound whatever its declared size, 401 and 429.
// Slow (workerd starts twice), so kept small.
import type { McpClient } from '../support/mcp.ts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openConnection, requestBytes, takeResponse } from '../support/http.ts';
import {
  apiAnswer,
  declaredMcpBody,
  eraHeaders,
  eraRequest,
  httpClient,
  postMcp,
  refusal,
  requestError,
  structured,
  toolCall,
} from '../support/mcp.ts';
import { startRuntime, type Runtime } from '../support/runtimes.ts';

const TOKEN = 'mcp-worker-token';

let runtime: Runtime;
let client: McpClient;

beforeAll(async () => {
  runtime = await startRuntime('worker', { tokens: [TOKEN] });
  client = await httpClient(runtime.url, TOKEN);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await runtime?.close();
});

test('the Worker lists the six tools', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual([
    'find_record',
    'list_records',
    'suggest',
    'plan',
    'tree_economics',
    'changes',
  ]);
});

test("the Worker's find_record answers with the records of its own GET /api/trees?search=", async () => {
  const answer = await structured(client, 'find_record', { kind: 'trees', query: 'giant sequoia' });
  expect(answer.records).toEqual((await apiAnswer(runtime.url, TOKEN, '/api/trees?search=giant%20sequoia')).data);
  const miss = await structured(client, 'find_record', { kind: 'trees', query: 'sequioa' });
  expect(miss.suggestions).toEqual((await apiAnswer(runtime.url, TOKEN, '/api/trees/suggest?search=sequioa')).data);
});

test('the Worker answers /mcp without a token with 401 and WWW-Authenticate, like the API', async () => {
  const response = await postMcp(runtime.url, toolCall('list_records', { kind: 'trees' }));
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
});

test('the Worker answers bad input to /mcp with a JSON-RPC error that names it', async () => {
  const faults: [string, string, Record<string, string>, number, string][] = [
    ['a batch', `[${toolCall('suggest', { kind: 'trees', text: 'oa' })}]`, {}, 400, 'Batches are not accepted'],
    ['malformed JSON', '{"jsonrpc":', {}, 400, 'Parse error: the body is not JSON'],
    ['no message', '"tools/list"', {}, 400, 'Invalid request: the body is "tools/list", not a JSON-RPC message'],
    [
      'params no object',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}',
      {},
      400,
      'Invalid params of tools/list: params must be an object, got [].',
    ],
    [
      '_meta no object (2025-11-25)',
      JSON.stringify(eraRequest('legacy', 'ping', { _meta: 5 })),
      {},
      400,
      'Invalid params of ping: _meta must be an object, got 5.',
    ],
    [
      'progress token of the wrong type (2026-07-28)',
      JSON.stringify(eraRequest('modern', 'tools/list', { _meta: { progressToken: [] } })),
      eraHeaders('modern', 'tools/list'),
      400,
      'Invalid params of tools/list: _meta.progressToken must be text or a whole number, got [].',
    ],
    ['deep nesting', `{"a":${'['.repeat(100)}${']'.repeat(100)}}`, {}, 400, 'nests deeper than 16'],
    ['oversize', toolCall('suggest', { kind: 'trees', text: 'x'.repeat(17_000) }), {}, 413, 'over 16384 bytes'],
    ['content type', '{}', { 'Content-Type': 'text/plain' }, 415, 'Content-Type must be application/json'],
  ];
  for (const [fault, body, headers, status, message] of faults) {
    const response = await postMcp(runtime.url, body, { token: TOKEN, headers });
    const answer = (await response.json()) as { error?: { message: string } };
    expect({ fault, status: response.status, named: answer.error?.message.includes(message) }).toEqual({
      fault,
      status,
      named: true,
    });
  }
  const unknown = await postMcp(runtime.url, toolCall('find_records', {}), { token: TOKEN });
  expect(await unknown.json()).toMatchObject({
    error: { code: -32602, message: expect.stringMatching(/^Unknown tool/) },
  });
});

test('the Worker refuses a wrong argument as an isError result, malformed params as -32602', async () => {
  expect(await refusal(client, 'plan', { level: 107 })).toBe(
    'Invalid arguments for plan: level: no farm level 107: the levels are 1 to 106.',
  );
  expect(await requestError(client, 'tools/call', { name: 'find_record', arguments: [] })).toEqual({
    code: -32602,
    message:
      "MCP error -32602: Invalid params of tools/call: arguments must be an object of the tool's arguments by name, " +
      'got [].',
  });
});

test('the Worker\'s tools read their arguments as their own: "null" is a name, 5 a level', async () => {
  expect(await structured(client, 'find_record', { kind: 'trees', query: 'null' })).toMatchObject({
    found: false,
    records: [],
  });
  const five = await structured(client, 'find_record', { kind: 'trees', query: 5 });
  expect(five.records).toEqual((await apiAnswer(runtime.url, TOKEN, '/api/trees?search=5')).data);
});

// Sent whole: wrangler's local stack answers a request only once its body has come
// (on the Node server, http.test.ts checks the 413 before the body is sent).
test('the Worker answers a body over the bound, whatever its size, with the one JSON-RPC 413', async () => {
  for (const length of [20_000, 100_000, 4_000_000]) {
    const response = await declaredMcpBody(runtime.url, length, { token: TOKEN, sent: true });
    expect({ length, status: response.status }).toEqual({ length, status: 413 });
    expect(response.headers).toMatchObject({ 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
    expect(JSON.parse(response.body.toString('utf8'))).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'The body is over 16384 bytes: send one short JSON-RPC message.' },
      id: null,
    });
  }
});

test('the Worker answers a /mcp body sent a few bytes at a time once it is whole', async () => {
  const call = toolCall('find_record', { kind: 'trees', query: 'giant sequoia' });
  const bytes = requestBytes('localhost', {
    method: 'POST',
    target: '/mcp',
    headers: [
      ['Authorization', `Bearer ${TOKEN}`],
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json, text/event-stream'],
      ['Connection', 'close'],
    ],
    body: call,
  });
  const connection = await openConnection(runtime.url);
  try {
    const split = bytes.length - Buffer.byteLength(call);
    connection.write(bytes.subarray(0, split));
    for (let at = split; at < bytes.length; at += 16) {
      connection.write(bytes.subarray(at, at + 16));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const response = await connection.read((received, ended) => takeResponse(received, 'POST', ended), 30_000);
    expect(response.status).toBe(200);
    const answer = JSON.parse(response.body.toString('utf8')) as {
      result: { structuredContent: { records: unknown[] } };
    };
    expect(answer.result.structuredContent.records).toEqual(
      (await apiAnswer(runtime.url, TOKEN, '/api/trees?search=giant%20sequoia')).data,
    );
  } finally {
    connection.close();
  }
});

test('the Worker answers /mcp past the rate limit with 429, a tool call counting as one request', async () => {
  const limited = await startRuntime('worker', { tokens: [TOKEN], rateLimit: { requests: 3, seconds: 60 } });
  try {
    const statuses: number[] = [];
    // Cloudflare's binding counts loosely (per location, eventually): call until refused, within bounds.
    while (statuses.length < 20 && statuses.at(-1) !== 429) {
      const response = await postMcp(limited.url, toolCall('suggest', { kind: 'trees', text: 'oa' }), {
        token: TOKEN,
      });
      statuses.push(response.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
  } finally {
    await limited.close();
  }
}, 120_000);
