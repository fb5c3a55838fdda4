// POST /mcp on the Node server, driven by the SDK's own client (README "MCP for AI assistants",
// docs/api-contract.md "MCP (/mcp)"): the tool list, every tool's answer equal to the API's (or
// the planner's) for the same question, typo-forgiving misses, JSON-RPC errors that name what
// is wrong, and the API's token and rate limit. The Worker's own suite is worker.test.ts.
import type { McpClient } from '../support/mcp.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { growthSpeedOf, plan, PLANNER_ASSUMPTIONS, treeEconomics } from '../../src/contract/economics.ts';
import { answerMcp } from '../../src/apps/mcp/answer.ts';
import type { Plot, Tree } from '../../src/schema/records.ts';
import type { ReleaseSummary } from '../../src/schema/releases.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import {
  apiAnswer,
  callError,
  declaredMcpBody,
  ERAS,
  eraHeaders,
  eraRequest,
  everyPage,
  httpClient,
  postMcp,
  refusal,
  structured,
  textOf,
  toolCall,
} from '../support/mcp.ts';
import { distDir, startRuntime, type Runtime } from '../support/runtimes.ts';

const TOKEN = 'mcp-test-token';
const TOOLS = ['find_record', 'list_records', 'suggest', 'plan', 'tree_economics', 'changes'];

let runtime: Runtime;
let client: McpClient;

beforeAll(async () => {
  runtime = await startRuntime('node', { tokens: [TOKEN] });
  client = await httpClient(runtime.url, TOKEN);
});
afterAll(async () => {
  await client?.close();
  await runtime?.close();
});

const api = (path: string) => apiAnswer(runtime.url, TOKEN, path);
/** JSON-RPC's codes (its specification): not JSON, not a valid request. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** The body of a JSON-RPC error answer, checked to be sent as JSON and never cached. */
async function rpcErrorOf(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('cache-control')).toBe('no-store');
  return (await response.json()) as { jsonrpc: string; error: { code: number; message: string }; id: unknown };
}

describe('the tools', () => {
  test('are the six tools, each read-only and idempotent, with an input and an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(80);
    }
  });

  test('each input says what it means for a model that has never seen the game (units, level, plot)', async () => {
    const { tools } = await client.listTools();
    const described = JSON.stringify(tools.map((tool) => tool.inputSchema));
    expect(described).toContain("the game's progression step");
    expect(described).toContain('The level of the plot (the land) the tree grows on');
    expect(described).toContain('In-game dollars');
  });
});

describe('find_record', () => {
  test.each([
    ['trees', 'giant sequoia'],
    ['trees', 'Croton Megalocarpus'],
    ['trees', '5'],
    ['cutters', '3'],
    ['plots', '2'],
  ])('answers %s %j with the records GET /api/<kind>?search= gives', async (kind, query) => {
    const answer = await structured(client, 'find_record', { kind, query });
    const expected = await api(`/api/${kind}?search=${encodeURIComponent(query)}`);
    expect(expected.status).toBe(200);
    expect(answer).toMatchObject({ found: true, message: expected.message, suggestions: [] });
    expect(answer.records).toEqual(expected.data);
  });

  test('answers from a release when given one, as ?release= does', async () => {
    const [release] = (await api('/api/releases')).data as { id: string }[];
    const answer = await structured(client, 'find_record', { kind: 'trees', query: '1', release: release?.id });
    expect(answer.records).toEqual((await api(`/api/trees?search=1&release=${release?.id}`)).data);
  });

  test('a miss with several near offers the suggestions the API would (gian: two giants)', async () => {
    const answer = await structured(client, 'find_record', { kind: 'trees', query: 'gian' });
    const suggested = await api('/api/trees/suggest?search=gian');
    expect(answer).toMatchObject({ found: false, match: 'none', records: [], suggestions: suggested.data });
    expect(suggested.data).toHaveLength(2);
    const text = await textOf(client, 'find_record', { kind: 'trees', query: 'gian' });
    expect(text).toMatch(/^No tree is named "gian"; the nearest are Giant Sequoia .*Giant Yellow Mulberry/);
  });

  test('a miss the API suggests one record for (sequioa) answers the records of a search by its name', async () => {
    const suggested = (await api('/api/trees/suggest?search=sequioa')).data as { name: string }[];
    expect(suggested).toEqual([expect.objectContaining({ name: 'Giant Sequoia' })]);
    const answer = await structured(client, 'find_record', { kind: 'trees', query: 'sequioa' });
    expect(answer).toMatchObject({ found: true, match: 'nearest', suggestions: suggested });
    expect(answer.records).toEqual((await api('/api/trees?search=giant%20sequoia')).data);
  });
});

test('list_records answers with the records GET /api/<kind> gives, a page at a time', async () => {
  for (const kind of ['trees', 'gifts', 'vehicles']) {
    const pages = await everyPage(client, 'list_records', { kind });
    expect(pages.flatMap((page) => page.records)).toEqual((await api(`/api/${kind}`)).data);
  }
});

test('suggest answers with the choices GET /api/<kind>/suggest gives, near misses included', async () => {
  for (const text of ['oa', '', '1', 'sequioa']) {
    const answer = await structured(client, 'suggest', { kind: 'trees', text });
    expect(answer.suggestions).toEqual((await api(`/api/trees/suggest?search=${encodeURIComponent(text)}`)).data);
  }
});

test("plan answers with the planner's ranking for the API's trees and plots", async () => {
  const trees = (await api('/api/trees')).data as Tree[];
  const plots = (await api('/api/plots')).data as Plot[];
  const growthSpeed = growthSpeedOf(plots, 3);
  const expected = plan(treeEconomics(trees, growthSpeed), { level: 2, growthSpeed, money: 50_000 });
  const answer = await structured(client, 'plan', { level: 2, plot: 3, money: 50_000 });
  expect(answer).toMatchObject({
    level: 2,
    plot: { level: 3, growthSpeed },
    money: 50_000,
    ranking: expected.ranking,
    current: expected.current,
    next: expected.next,
    assumptions: PLANNER_ASSUMPTIONS,
  });
  const unlimited = await everyPage(client, 'plan', { level: 1 });
  expect(unlimited.flatMap((page) => page['ranking'])).toEqual(
    plan(treeEconomics(trees), { level: 1, growthSpeed: 100, money: Infinity }).ranking,
  );
  expect(unlimited[0]?.['money']).toBeNull();
});

test("tree_economics answers with the tree's own figures, found as find_record finds it", async () => {
  const trees = (await api('/api/trees')).data as Tree[];
  const plots = (await api('/api/plots')).data as Plot[];
  const [sequoia] = (await api('/api/trees?search=giant%20sequoia')).data as Tree[];
  const row = treeEconomics(trees, growthSpeedOf(plots, 2)).find((each) => each.level === sequoia?.level);
  const answer = await structured(client, 'tree_economics', { name: 'Giant Sequoia', plot: 2 });
  expect(answer).toMatchObject({ found: true, tree: sequoia, economics: row, suggestions: [] });
  const miss = await structured(client, 'tree_economics', { name: 'gian' });
  expect(miss).toMatchObject({ found: false, tree: null, economics: null });
  expect(miss['suggestions']).toEqual((await api('/api/trees/suggest?search=gian')).data);
});

/** The releases of every page of the changes tool, each release's changes gathered from the pages it spans. */
async function everyRelease(args: Record<string, unknown>) {
  const releases = new Map<string, ReleaseSummary>();
  for (const page of await everyPage(client, 'changes', args))
    for (const release of page['releases'] as ReleaseSummary[]) {
      const held = releases.get(release.id);
      if (!held) releases.set(release.id, release);
      else
        for (const type of ['added', 'removed', 'changed'] as const)
          held.changes[type].push(...(release.changes[type] as never[]));
    }
  return [...releases.values()];
}

test('changes answers with the releases GET /api/releases lists, and only those after `since`', async () => {
  const releases = (await api('/api/releases')).data as ReleaseSummary[];
  expect(await everyRelease({})).toEqual(releases);
  const oldest = releases.at(-1)?.id;
  expect(await everyRelease({ since: oldest })).toEqual(releases.slice(0, -1));
});

// Each message word for word: tools.test.ts.
describe('errors as the negotiated MCP version (2025-11-25) has them', () => {
  test('an unknown tool is a JSON-RPC error -32602 naming the tools', async () => {
    const error = await callError(client, 'find_records', { kind: 'trees', query: 'oak' });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('Unknown tool "find_records": the tools are find_record, list_records');
  });

  test('malformed tools/call params are a JSON-RPC error -32602 with the id, in one sentence', async () => {
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'find_record', arguments: [] },
    });
    const response = await postMcp(runtime.url, call, { token: TOKEN });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32602,
        message: "Invalid params of tools/call: arguments must be an object of the tool's arguments by name, got [].",
      },
    });
  });

  test('malformed initialize params are a JSON-RPC error -32602 with the id, in one sentence', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 20251125, capabilities: {}, clientInfo: { name: 'bot', version: '1.0' } },
    });
    const response = await postMcp(runtime.url, initialize, { token: TOKEN });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message:
          'Invalid params of initialize: protocolVersion must be an MCP version as text ("2025-11-25"), got 20251125.',
      },
    });
  });

  test('params that are no object: -32602 with the id, naming them', async () => {
    const call = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: 'find_record' });
    const response = await postMcp(runtime.url, call, { token: TOKEN });
    expect(response.status).toBe(400);
    expect(await rpcErrorOf(response)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params of tools/call: params must be an object, got "find_record".' },
      id: 4,
    });
  });

  test('a wrong argument is a tool result flagged isError, naming the argument and its values', async () => {
    const response = await postMcp(runtime.url, toolCall('find_record', { kind: 'tree', query: 'oak' }), {
      token: TOKEN,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [
          {
            type: 'text',
            text:
              'Invalid arguments for find_record: kind: expected one of trees, cutters, gifts, plots, storages, ' +
              'vehicles, got "tree".',
          },
        ],
        isError: true,
      },
    });
  });
});

describe("a tool's arguments are its own", () => {
  test.each(['null', 'undefined'])('find_record %j is a name to look for, not the whole list', async (query) => {
    const answer = await structured(client, 'find_record', { kind: 'trees', query });
    expect(answer).toMatchObject({ found: false, records: [] });
    expect((await api(`/api/trees?search=${query}`)).data).toHaveLength(106);
  });

  test('tree_economics "null" finds no tree (the API would answer the level 1 tree first)', async () => {
    expect(await structured(client, 'tree_economics', { name: 'null' })).toMatchObject({ found: false, tree: null });
  });

  test('a blank query is refused', async () => {
    expect(await refusal(client, 'find_record', { kind: 'trees', query: ' ' })).toMatch(
      /^Invalid arguments for find_record: query: expected a name or alias/,
    );
  });

  test('a level as a number: the records of ?search=5', async () => {
    const answer = await structured(client, 'find_record', { kind: 'trees', query: 5 });
    expect(answer.records).toEqual((await api('/api/trees?search=5')).data);
  });

  test('plan past the top level: refused, naming the top level', async () => {
    expect(await refusal(client, 'plan', { level: 107 })).toBe(
      'Invalid arguments for plan: level: no farm level 107: the levels are 1 to 106.',
    );
  });
});

describe('HTTP', () => {
  test("no token: 401 with the API's body and WWW-Authenticate, and the SDK client cannot connect", async () => {
    const response = await postMcp(runtime.url, toolCall('list_records', { kind: 'trees' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toEqual({
      error: true,
      message: 'An API token is required. Send it in the Authorization header.',
    });
    await expect(httpClient(runtime.url, 'not-the-token')).rejects.toMatchObject({ code: 401 });
  });

  test('GET and DELETE: 405 with Allow: POST and a JSON-RPC error -32000 (no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/mcp', runtime.url), {
        method,
        headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await rpcErrorOf(response)).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message:
            `Method ${method} is not allowed here: POST one JSON-RPC message (this server keeps no session and ` +
            'offers no event stream).',
        },
        id: null,
      });
    }
  });

  test.each([
    [
      'a batch',
      `[${toolCall('suggest', { kind: 'trees', text: 'oa' })}]`,
      {},
      400,
      INVALID_REQUEST,
      'Batches are not accepted (MCP 2025-06-18 removed JSON-RPC batching): send one message per request.',
    ],
    ['malformed JSON', '{"jsonrpc":"2.0",', {}, 400, PARSE_ERROR, 'Parse error: the body is not JSON ('],
    [
      'JSON that is no message',
      '"tools/list"',
      {},
      400,
      INVALID_REQUEST,
      'Invalid request: the body is "tools/list", not a JSON-RPC message (an object with "jsonrpc": "2.0").',
    ],
    [
      'another JSON-RPC version',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      {},
      400,
      INVALID_REQUEST,
      'Invalid request: "jsonrpc" must be "2.0", got "1.0".',
    ],
    [
      'neither a method nor a result',
      '{"jsonrpc":"2.0","id":1}',
      {},
      400,
      INVALID_REQUEST,
      'Invalid request: a JSON-RPC message has a "method" (a request or notification), or a "result" or "error" ' +
        '(a response).',
    ],
    [
      'deep nesting',
      `${'['.repeat(40)}${']'.repeat(40)}`.replace(/^\[/, '{"a":[').replace(/\]$/, ']}'),
      {},
      400,
      INVALID_REQUEST,
      'The message nests deeper than 16 levels.',
    ],
    [
      'a body over 16 KiB',
      toolCall('suggest', { kind: 'trees', text: 'x'.repeat(17_000) }),
      {},
      413,
      INVALID_REQUEST,
      'The body is over 16384 bytes: send one short JSON-RPC message.',
    ],
    [
      'the wrong content type',
      toolCall('suggest', { kind: 'trees', text: 'oa' }),
      { 'Content-Type': 'text/plain' },
      415,
      INVALID_REQUEST,
      'Content-Type must be application/json, got "text/plain".',
    ],
  ])('%s: a JSON-RPC error naming it, with no id', async (_name, body, headers, status, code, message) => {
    const response = await postMcp(runtime.url, body, { token: TOKEN, headers });
    expect(response.status).toBe(status);
    const answer = await rpcErrorOf(response);
    expect(answer).toMatchObject({ jsonrpc: '2.0', error: { code }, id: null });
    expect(answer.error.message.startsWith(message)).toBe(true);
    expect(JSON.stringify(answer)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  test.each(ERAS)('a malformed _meta, in the %s era: 400, a JSON-RPC error -32602 naming it', async (era) => {
    const send = (params: Record<string, unknown>) =>
      postMcp(runtime.url, JSON.stringify(eraRequest(era, 'tools/list', params, 5)), {
        token: TOKEN,
        headers: eraHeaders(era, 'tools/list'),
      });
    const notAnObject = await send({ _meta: 'meta' });
    expect(notAnObject.status).toBe(400);
    expect(await rpcErrorOf(notAnObject)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params of tools/list: _meta must be an object, got "meta".' },
      id: 5,
    });
    const token = await send({ _meta: { progressToken: 1.5 } });
    expect(token.status).toBe(400);
    expect((await rpcErrorOf(token)).error.message).toBe(
      'Invalid params of tools/list: _meta.progressToken must be text or a whole number, got 1.5.',
    );
  });

  test('no Content-Type at all: 415 saying none was sent', async () => {
    const response = await fetch(new URL('/mcp', runtime.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json, text/event-stream' },
      // A byte body: fetch gives it no Content-Type of its own (a string would be text/plain).
      body: new TextEncoder().encode(toolCall('suggest', { kind: 'trees', text: 'oa' })),
    });
    expect(response.status).toBe(415);
    expect((await rpcErrorOf(response)).error).toEqual({
      code: INVALID_REQUEST,
      message: 'Content-Type must be application/json, got none.',
    });
  });

  test('a body of exactly 16 KiB is answered; one byte more is 413', async () => {
    const call = toolCall('suggest', { kind: 'trees', text: 'oa' });
    // JSON allows white space after the value: the same message, padded to the byte.
    const padded = (bytes: number) => call + ' '.repeat(bytes - call.length);
    const whole = await postMcp(runtime.url, padded(16_384), { token: TOKEN });
    expect(whole.status).toBe(200);
    expect(await whole.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: {} } });
    const over = await postMcp(runtime.url, padded(16_385), { token: TOKEN });
    expect(over.status).toBe(413);
    expect((await rpcErrorOf(over)).error.message).toBe(
      'The body is over 16384 bytes: send one short JSON-RPC message.',
    );
  });

  test.each([20_000, 100_000, 10_000_000])(
    'a body declared %i bytes long: the one JSON-RPC 413, with the API headers, the connection closed',
    async (length) => {
      const response = await declaredMcpBody(runtime.url, length, { token: TOKEN });
      expect(response.status).toBe(413);
      expect(response.headers).toMatchObject({
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
        connection: 'close',
      });
      expect(JSON.parse(response.body.toString('utf8'))).toEqual({
        jsonrpc: '2.0',
        error: { code: INVALID_REQUEST, message: 'The body is over 16384 bytes: send one short JSON-RPC message.' },
        id: null,
      });
    },
  );

  test('a body declared over the bound without a token: the 401 first, the connection closed', async () => {
    const response = await declaredMcpBody(runtime.url, 100_000);
    expect(response.status).toBe(401);
    expect(response.headers).toMatchObject({ 'www-authenticate': 'Bearer', connection: 'close' });
  });

  test('arrays and objects nested exactly 16 deep are answered; 17 is refused; values are no level', async () => {
    // The message's object, params and _meta are three levels; the arrays inside make the rest.
    // The innermost array holds a null and a text, which nest nothing.
    const arrays = (levels: number): string => (levels === 1 ? '[null,"leaf"]' : `[${arrays(levels - 1)}]`);
    const ping = (levels: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"deep":${arrays(levels - 3)}}}}`;
    const sixteen = await postMcp(runtime.url, ping(16), { token: TOKEN });
    expect(sixteen.status).toBe(200);
    expect(await sixteen.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const seventeen = await postMcp(runtime.url, ping(17), { token: TOKEN });
    expect(seventeen.status).toBe(400);
    expect((await rpcErrorOf(seventeen)).error).toEqual({
      code: INVALID_REQUEST,
      message: 'The message nests deeper than 16 levels.',
    });
  });

  test('a body that cannot be read: 400, a parse error saying so', async () => {
    const { index } = await loadBodyStore(distDir);
    const failing = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new Error('reset')) });
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: failing,
      duplex: 'half',
    } as RequestInit);
    const response = await answerMcp(request, index, { 'Cache-Control': 'no-store' });
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await rpcErrorOf(response)).toEqual({
      jsonrpc: '2.0',
      error: { code: PARSE_ERROR, message: 'Parse error: the body is not JSON (the body could not be read).' },
      id: null,
    });
  });

  test('a tool call answers in one POST, with no session (stateless), JSON not an event stream', async () => {
    const response = await postMcp(runtime.url, toolCall('find_record', { kind: 'trees', query: 'oak tree' }), {
      token: TOKEN,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    // The API's headers of /mcp, over the transport's own.
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const answer = (await response.json()) as { result: { structuredContent: { records: unknown[] } } };
    expect(answer.result.structuredContent.records).toEqual((await api('/api/trees?search=oak%20tree')).data);
  });
});

test('past the rate limit: 429 as for /api/, each tool call counting as one request', async () => {
  // The count's clock held in the middle of a window, so all five calls share it.
  const limited = await startRuntime('node', {
    tokens: [TOKEN],
    rateLimit: { requests: 3, seconds: 60 },
    rateClock: () => 30_000,
  });
  try {
    const call = () => postMcp(limited.url, toolCall('suggest', { kind: 'trees', text: 'oa' }), { token: TOKEN });
    const statuses = [];
    for (let count = 0; count < 4; count++) statuses.push((await call()).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await call();
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: boolean }).error).toBe(true);
  } finally {
    await limited.close();
  }
});
