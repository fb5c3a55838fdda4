// What a model reads of the MCP server, checked for a reader that has never seen the API: every
// description (tools and each of their arguments and output fields, prompts and their arguments,
// resource templates and resources, the instructions) and every error the server can give (a
// tool's refusal, a JSON-RPC error of any method, a message refused before the SDK sees it, an
// HTTP fault of /mcp) names no HTTP path, and each error is one sentence. Node, the Worker and
// stdio answer through this same code (answer.ts, messages.ts, server.ts), so it is read here in
// this process.
import { describe, expect, test } from 'vitest';
import { answerMcp } from '../../src/apps/mcp/answer.ts';
import { MCP_MAX_BODY_BYTES } from '../../src/apps/mcp/bounds.ts';
import { readMessage } from '../../src/apps/mcp/messages.ts';
import { createMcpServer } from '../../src/apps/mcp/server.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { callError, memoryClient, refusal, requestError, textOf } from '../support/mcp.ts';
import { distDir } from '../support/runtimes.ts';

const store = await loadBodyStore(distDir);
const client = await memoryClient(createMcpServer(store.index, 'http://127.0.0.1:4321'));

/** An HTTP path a model has no use for: a method and a path, or the API's own paths. */
const HTTP_PATH = /\b(GET|POST|PUT|DELETE|HEAD)\s+\/|\/api\b|\?search=/;

/** What is wrong with a text's punctuation, for every text a model reads: none is "". */
function punctuationFault(text: string): string {
  if (!/[^.]\.$/.test(text)) return 'does not end with one period';
  if (text.includes('..')) return 'has two periods in a row';
  if (text.includes('  ')) return 'has two spaces in a row';
  if (HTTP_PATH.test(text)) return 'names an HTTP path';
  return '';
}

/** What is wrong with an error's text: its punctuation, or more than one sentence. */
function errorFault(text: string): string {
  return punctuationFault(text) || (/[.!?]["')]?\s+[A-Z]/.test(text) ? 'is more than one sentence' : '');
}

/** Every `description` under `value`, with where it is. */
function* descriptions(value: unknown, path: string): Generator<[string, string]> {
  if (Array.isArray(value)) for (const [at, each] of value.entries()) yield* descriptions(each, `${path}[${at}]`);
  else if (typeof value === 'object' && value !== null)
    for (const [key, each] of Object.entries(value)) {
      if (key === 'description' && typeof each === 'string') yield [path, each];
      else yield* descriptions(each, `${path}.${key}`);
    }
}

/** The texts that break `rule`, each with where it is and why. */
const faults = (texts: Iterable<[string, string]>, rule: (text: string) => string) =>
  [...texts].flatMap(([where, text]) => (rule(text) ? [`${where}: ${rule(text)}: ${text}`] : []));

describe('descriptions: no HTTP path, each sentence ending in one period', () => {
  test('every tool, argument and output field', async () => {
    const { tools } = await client.listTools();
    expect(faults(descriptions(tools, 'tools'), punctuationFault)).toEqual([]);
    expect([...descriptions(tools, 'tools')].length).toBeGreaterThan(50);
  });

  test('every prompt and argument, resource template and resource, and the instructions', async () => {
    const texts = [
      ...descriptions((await client.listPrompts()).prompts, 'prompts'),
      ...descriptions((await client.listResourceTemplates()).resourceTemplates, 'templates'),
      ...descriptions((await client.listResources()).resources, 'resources'),
      ['instructions', client.getInstructions() ?? ''] as [string, string],
    ];
    expect(faults(texts, punctuationFault)).toEqual([]);
  });

  test("every prompt's words to the model (before the data it embeds)", async () => {
    const asked = [
      ['plan_farm', { level: '3', money: '50000' }],
      ['compare_records', { kind: 'trees', first: 'oak tre', second: 'giant sequoia' }],
      ['whats_new', {}],
    ] as const;
    const texts: [string, string][] = [];
    for (const [name, args] of asked) {
      const { messages } = await client.getPrompt({ name, arguments: args });
      for (const [at, { content }] of messages.entries())
        if ((content as { type: string }).type === 'text')
          texts.push([`${name}[${at}]`, ((content as { text: string }).text.split('\n\n')[0] ?? '').trim()]);
    }
    expect(faults(texts, punctuationFault)).toEqual([]);
  });
});

describe('errors: one sentence each, no HTTP path', () => {
  test("every tool's refusal of its arguments", async () => {
    const refused: [string, Record<string, unknown> | undefined][] = [
      ['find_record', undefined],
      ['find_record', { kind: 'tree', query: 'oak', release: 'yesterday' }],
      ['find_record', { kind: 'trees', query: 'o'.repeat(101) }],
      ['find_record', { kind: 'trees', query: 'oak', colour: 'red' }],
      ['find_record', { kind: 'trees', query: 'oak', release: '1999-01-01' }],
      ['find_record', { kind: 'trees', query: ' ' }],
      ['find_record', { kind: 'trees', query: '1', limit: 0 }],
      ['find_record', { kind: 'trees', query: '1', cursor: 'not a cursor' }],
      ['list_records', { kind: 'trees', limit: 101 }],
      ['list_records', { kind: 'trees', cursor: 'x'.repeat(300) }],
      ['list_records', { kind: 'trees', cursor: 5 }],
      ['suggest', { kind: 'trees' }],
      ['plan', { level: 107 }],
      ['plan', { level: 'five', money: -1 }],
      ['plan', { level: 1, plot: 999 }],
      ['plan', { level: 1, cursor: '' }],
      ['tree_economics', { name: 'oak', plot: 0 }],
      ['changes', { since: '2026-02-30' }],
      ['changes', { since: 'last week' }],
    ];
    const texts: [string, string][] = [];
    for (const [name, args] of refused)
      texts.push([`${name} ${JSON.stringify(args)}`, await refusal(client, name, args)]);
    expect(faults(texts, errorFault)).toEqual([]);
  });

  test('every JSON-RPC error of a method, a tool, a prompt, a resource or a completion', async () => {
    const errors: [string, { message: string }][] = [
      ['an unknown tool', await callError(client, 'find_records', {})],
      ['an unknown method', await requestError(client, 'treefarm/records', {})],
      ['tools/call without a name', await requestError(client, 'tools/call', { arguments: {} })],
      ['tools/call with a list', await requestError(client, 'tools/call', { name: 'plan', arguments: [] })],
      ['a list with a bad cursor', await requestError(client, 'tools/list', { cursor: 5 })],
      ['resources/list with a bad cursor', await requestError(client, 'resources/list', { cursor: 'nope' })],
      ['resources/read of nothing', await requestError(client, 'resources/read', { uri: 'treefarm://trees/none' })],
      ['resources/read of no URI', await requestError(client, 'resources/read', { uri: 5 })],
      ['an unknown prompt', await requestError(client, 'prompts/get', { name: 'plan_garden' })],
      ['a prompt without its argument', await requestError(client, 'prompts/get', { name: 'plan_farm' })],
      [
        'a prompt with an unknown argument',
        await requestError(client, 'prompts/get', { name: 'whats_new', arguments: { after: '1' } }),
      ],
      [
        'a prompt with a wrong level',
        await requestError(client, 'prompts/get', { name: 'plan_farm', arguments: { level: '500' } }),
      ],
      [
        'compare_records with several near',
        await requestError(client, 'prompts/get', {
          name: 'compare_records',
          arguments: { kind: 'trees', first: 'oa', second: 'giant sequoia' },
        }),
      ],
      [
        'compare_records with nothing near',
        await requestError(client, 'prompts/get', {
          name: 'compare_records',
          arguments: { kind: 'trees', first: 'zzzzzzzz', second: 'giant sequoia' },
        }),
      ],
      [
        'a completion of no prompt',
        await requestError(client, 'completion/complete', {
          ref: { type: 'ref/prompt', name: 'plan_garden' },
          argument: { name: 'level', value: '1' },
        }),
      ],
      [
        'a completion of no template',
        await requestError(client, 'completion/complete', {
          ref: { type: 'ref/resource', uri: 'treefarm://tree/{slug}' },
          argument: { name: 'slug', value: '' },
        }),
      ],
      ['a completion of nothing', await requestError(client, 'completion/complete', { ref: 5 })],
    ];
    expect(
      faults(
        errors.map(([where, { message }]) => [where, message]),
        errorFault,
      ),
    ).toEqual([]);
  });

  test('every message refused before a server reads it, and every HTTP fault of /mcp', async () => {
    const texts: [string, string][] = [];
    for (const body of [
      'oops',
      'x'.repeat(200),
      '[]',
      '5',
      '{"jsonrpc":"1.0"}',
      '[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]',
    ]) {
      const read = readMessage(body);
      texts.push([body.slice(0, 20), 'fault' in read ? read.fault.message : 'no fault']);
    }
    const post = (init: RequestInit) =>
      answerMcp(new Request('http://127.0.0.1/mcp', { method: 'POST', ...init }), store.index, {});
    const faultOf = async (response: Response) =>
      ((await response.json()) as { error: { message: string } }).error.message;
    texts.push(['GET', await faultOf(await answerMcp(new Request('http://127.0.0.1/mcp'), store.index, {}))]);
    texts.push(['text/plain', await faultOf(await post({ headers: { 'Content-Type': 'text/plain' }, body: '{}' }))]);
    texts.push([
      'too long',
      await faultOf(
        await post({ headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(MCP_MAX_BODY_BYTES + 1) }),
      ),
    ]);
    expect(faults(texts, errorFault)).toEqual([]);
  });
});

test('answers read as sentences too: a miss, a nearest record, several near, a page', async () => {
  const answers: [string, string][] = [];
  for (const query of ['zzzzzzzz', 'sequioa', 'oa', '107'])
    answers.push([query, await textOf(client, 'find_record', { kind: 'trees', query })]);
  answers.push(['list_records', await textOf(client, 'list_records', { kind: 'trees' })]);
  answers.push(['plan', await textOf(client, 'plan', { level: 50 })]);
  answers.push(['changes', await textOf(client, 'changes', {})]);
  expect(faults(answers, punctuationFault)).toEqual([]);
});
