// The MCP tools' answers word for word (src/apps/mcp/): the text a person reads for each
// branch of each tool, the JSON-RPC errors of malformed requests, the refusals (isError) of
// wrong arguments, the tool list's annotations and the
// server's capabilities. The SDK's client talks to createMcpServer over the SDK's in-memory
// transport, in this process, so the contract's mutation run (vitest.mutation.config.ts) sees
// every mutant. The data are the build's (dist/), with the bodies of a few routes replaced where
// a branch needs other data (no release yet, a tree that earns less than the one below).
// Expected texts are written out from the content (content/, releases/): the sums are worked
// in the comments. http.test.ts checks the same tools' records against the API over HTTP.
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { createMcpServer } from '../../src/apps/mcp/server.ts';
import { answerMcp } from '../../src/apps/mcp/answer.ts';
import { runTool, ToolInputError } from '../../src/apps/mcp/tools.ts';
import { levelRoute, listRoute, RELEASES_ROUTE } from '../../src/contract/paths.ts';
import type { RouteIndex } from '../../src/contract/resolve.ts';
import type { Tree } from '../../src/schema/records.ts';
import type { ReleaseSummary } from '../../src/schema/releases.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { routeBody } from '../support/dist-routes.ts';
import { callError, memoryClient, refusal, requestError, structured, textOf } from '../support/mcp.ts';
import { distDir } from '../support/runtimes.ts';

/** The origin the wiki links point to (the request's online; --url's offline). */
const ORIGIN = 'http://127.0.0.1:4321';
const store = await loadBodyStore(distDir);
const client = await memoryClient(createMcpServer(store.index, ORIGIN));

/** The build's index with the bodies of some routes of the current data answered by other texts. */
function indexWith(texts: Record<string, string>): RouteIndex {
  const replaced = new Map<string, string>();
  for (const [route, text] of Object.entries(texts)) {
    const body = routeBody(route);
    if (body === undefined) throw new Error(`${route} is not a route of the build`);
    replaced.set(body, text);
  }
  return { ...store.index, text: (body) => replaced.get(body) ?? store.index.text(body) };
}
const envelope = (data: unknown[]) => JSON.stringify({ error: false, message: 'Made by the test.', data });
const clientOf = (texts: Record<string, string>) => memoryClient(createMcpServer(indexWith(texts), ORIGIN));
const [juniper, arborvitae] = (await structured(client, 'list_records', { kind: 'trees' })).records as Tree[];

describe('find_record', () => {
  test.each([
    ['one record: its noun singular', { kind: 'trees', query: '5' }, 'Found 1 tree for "5": American Elm (level 5).'],
    [
      'several: the noun plural, in list order',
      { kind: 'gifts', query: '1' },
      'Found 2 gifts for "1": small (level 1), medium (level 1).',
    ],
    ['a plot, which has no name: its level', { kind: 'plots', query: '2' }, 'Found 1 plot for "2": level 2.'],
    [
      'a name no record has, one name near it (a typo): that record, saying which it took',
      { kind: 'trees', query: 'sequioa' },
      'No tree is named "sequioa"; the nearest is Giant Sequoia (level 51), shown here.',
    ],
    [
      'the start of one name only: that record',
      { kind: 'trees', query: 'oak tre' },
      'No tree is named "oak tre"; the nearest is Oak Tree (level 69), shown here.',
    ],
    // Oak Tree's name starts with "oa", then the names with a word that does, in list order.
    [
      'several names near: the candidates, five and how many more, to ask again by one',
      { kind: 'trees', query: 'oa' },
      'No tree is named "oa"; the nearest are Oak Tree (level 69), Chestnut Oak (level 35), ' +
        'Northern Red Oak (level 68), Scarlet Oak (level 88), Silky Oak (level 91) and 1 more ' +
        '(ask again by one of these names).',
    ],
    [
      'a miss with nothing near',
      { kind: 'cutters', query: 'zzzzzzzz' },
      'No cutter matches "zzzzzzzz", and none is near it.',
    ],
  ])('the text of %s', async (_case, args, text) => {
    expect(await textOf(client, 'find_record', args)).toBe(text);
  });

  test('found: the records and the message of the answer, no suggestions', async () => {
    expect(await structured(client, 'find_record', { kind: 'trees', query: '5' })).toMatchObject({
      found: true,
      message: 'The requested tree data was successfully found.',
      records: [expect.objectContaining({ name: 'American Elm', level: 5 })],
      suggestions: [],
    });
  });

  test('several near (ambiguous): found false, no records, no error, the candidates by name and level', async () => {
    expect(await structured(client, 'find_record', { kind: 'trees', query: 'gian' })).toEqual({
      found: false,
      match: 'none',
      message:
        'The requested tree could not be found with the provided query. Please check the name or ID and try again.',
      version: store.manifest.version,
      records: [],
      suggestions: [
        { name: 'Giant Sequoia', level: 51 },
        { name: 'Giant Yellow Mulberry', level: 52 },
      ],
      total: 0,
    });
  });

  test('one near: found, the record as a search by its name answers it, the suggestion it took', async () => {
    const taken = await structured(client, 'find_record', { kind: 'trees', query: 'sequioa' });
    const named = await structured(client, 'find_record', { kind: 'trees', query: 'Giant Sequoia' });
    expect(taken).toEqual({
      ...named,
      match: 'nearest',
      suggestions: [{ name: 'Giant Sequoia', level: 51 }],
    });
    expect(named).toMatchObject({ found: true, match: 'exact', suggestions: [], total: 1 });
  });

  test('a release given: the answer and data version of that release', async () => {
    const answer = await structured(client, 'find_record', { kind: 'trees', query: '1', release: '2026-11-22' });
    // releases/2026-11-22.json
    expect(answer).toMatchObject({ found: true, version: '0ae3cb34ba345081' });
    expect(answer.version).not.toBe(store.manifest.version);
  });
});

describe('list_records', () => {
  test.each([
    [
      'gifts',
      'in the order the content declares within a level',
      '3 gifts, in level order: small (level 1), medium (level 1), large (level 2).',
    ],
    [
      'plots',
      'by level alone (plots have no name)',
      '8 plots, in level order: level 1, level 2, level 3, level 4, level 5, level 6, level 7, level 8.',
    ],
    [
      'trees',
      'the first ten and how many more',
      '106 trees, in level order: African Juniper (level 1), American Arborvitae (level 2), ' +
        'American Beech (level 3), American Chestnut (level 4), American Elm (level 5), ' +
        'American Hornbeam (level 6), American Larch (level 7), American Mountainash (level 8), ' +
        'Apple Tree (level 9), Aspen Tree (level 10) and 4 more; this page holds trees 1 to 14 of 106, and the ' +
        'cursor "azI5MGJ5OjE0" gives the next.',
    ],
  ])('the text of %s: %s', async (kind, _how, text) => {
    expect(await textOf(client, 'list_records', { kind })).toBe(text);
  });

  test('a release given: the records of that release, with its data version', async () => {
    expect(await structured(client, 'list_records', { kind: 'plots', release: '2026-11-22' })).toMatchObject({
      version: '0ae3cb34ba345081',
      records: expect.arrayContaining([expect.objectContaining({ level: 8 })]),
    });
  });
});

describe('pages', () => {
  test('a limit asked for is given as asked; the next page starts where it ended', async () => {
    const first = await structured(client, 'list_records', { kind: 'trees', limit: 30 });
    expect(first.records).toHaveLength(30);
    expect(first).toMatchObject({ total: 106, nextCursor: expect.any(String) });
    const next = await structured(client, 'list_records', { kind: 'trees', limit: 30, cursor: first['nextCursor'] });
    expect((next.records as Tree[])[0]?.level).toBe(31);
  });

  test('the last page has no nextCursor', async () => {
    expect(await structured(client, 'list_records', { kind: 'plots' })).not.toHaveProperty('nextCursor');
  });

  test("a cursor of another list (or data) is refused in one sentence naming it, never read as another's", async () => {
    const { nextCursor } = await structured(client, 'list_records', { kind: 'trees' });
    expect(await refusal(client, 'plan', { level: 106, cursor: nextCursor })).toBe(
      `Invalid arguments for plan: cursor: ${JSON.stringify(nextCursor)} is no cursor of this list (give the ` +
        'nextCursor of its page before, with the same other arguments, or no cursor for the first page).',
    );
  });
});

describe('suggest', () => {
  test('the text names each suggestion in order', async () => {
    expect(await textOf(client, 'suggest', { kind: 'trees', text: 'giant' })).toBe(
      'Suggestions for "giant": Giant Sequoia (level 51), Giant Yellow Mulberry (level 52).',
    );
  });

  test('nothing typed: the first 25 in list order, all 25 named (no "and 0 more")', async () => {
    const first = [
      'African Juniper',
      'American Arborvitae',
      'American Beech',
      'American Chestnut',
      'American Elm',
      'American Hornbeam',
      'American Larch',
      'American Mountainash',
      'Apple Tree',
      'Aspen Tree',
      'Avocado Tree',
      'Bald Cypress',
      'Balsam Fir',
      'Banana Tree',
      'Basswood',
      'Bigtooth Aspen',
      'Birch Tree',
      'Bitternut Hickory',
      'Black Ash',
      'Black Birch',
      'Black Cherry',
      'Black Locust',
      'Black Walnut',
      'Black Willow',
      'Bonsai Tree',
    ];
    expect(await textOf(client, 'suggest', { kind: 'trees', text: '' })).toBe(
      `Suggestions for "": ${first.map((name, at) => `${name} (level ${at + 1})`).join(', ')}.`,
    );
  });

  test('none: the text says so', async () => {
    expect(await textOf(client, 'suggest', { kind: 'vehicles', text: 'zzzzzz' })).toBe('No suggestions for "zzzzzz".');
    expect(await structured(client, 'suggest', { kind: 'vehicles', text: 'zzzzzz' })).toEqual({ suggestions: [] });
  });
});

describe('plan', () => {
  // content/trees: African Juniper (level 1) sells 119 logs at $6, a sapling $69: $645 a harvest
  // of 60 s, $645 × 3600 ÷ 60 = $38,700 an hour. American Arborvitae (level 2): 124 × $8 − $79 =
  // $913 a 61 s harvest, $53,881.97 an hour; its upgrade of $11,500 pays back in
  // 11,500 ÷ (53,881.97 − 38,700) = 0.757… hours.
  test('with no money: the level 1 tree alone, and the next upgrade with its payback', async () => {
    expect(await textOf(client, 'plan', { level: 1, money: 0 })).toBe(
      '1 tree within reach; the best is African Juniper (level 1) at $38,700 an hour. ' +
        'Next upgrade: American Arborvitae (level 2) for $11,500, which pays back in 0.8 h.',
    );
  });

  // Yellow Birch (level 106, the top): (19,972 × $16,510,126 − $162,975,502) × 3600 ÷ 1336 s =
  // $888,082,439,739.52 an hour, the most of any tree.
  test('at the top level: every tree, and no upgrade above', async () => {
    expect(await textOf(client, 'plan', { level: 106 })).toBe(
      '106 trees within reach; the best is Yellow Birch (level 106) at $888,082,439,740 an hour; this page ' +
        'holds trees 1 to 10 of 106, and the cursor "dzR1NmRvOjEw" gives the next. There is no upgrade above this ' +
        'level.',
    );
  });

  test('no tree at or below the level: none within reach', async () => {
    const empty = await clientOf({ [listRoute('trees')]: envelope([]) });
    expect(await textOf(empty, 'plan', { level: 1 })).toBe(
      'No tree is within reach. There is no upgrade above this level.',
    );
  });
});

describe('tree_economics', () => {
  // Giant Sequoia (level 51): 1364 logs × $7,574 = $10,330,936 a harvest, $10,256,164 once its
  // $74,772 sapling is paid; on the level 3 plot (104 %) a 263 s harvest takes 263 ÷ 1.04 s:
  // $10,256,164 × 3600 × 1.04 ÷ 263 = $146,004,098.92 an hour. Reaching it: the upgrade costs of
  // levels 2 to 51, $83,003,714. Flowering Dogwood (level 50) earns (1299 × $6,586 − $65,019) ×
  // 3600 × 1.04 ÷ 255 s = $124,656,039.53 an hour there, so Giant Sequoia's upgrade of
  // $10,836,574 pays back in 10,836,574 ÷ 21,348,059.39 = 0.508 hours.
  test('a tree found: what it sells for and earns, what reaching it costs, its payback', async () => {
    expect(await textOf(client, 'tree_economics', { name: 'Giant Sequoia', plot: 3 })).toBe(
      'Giant Sequoia (level 51): a harvest sells for $10,330,936 and earns $10,256,164, $146,004,099 an hour; ' +
        'reaching it costs $83,003,714 of upgrades; its upgrade pays back in 0.5 h.',
    );
  });

  test('the level 1 tree: no upgrade to reach it', async () => {
    expect(await textOf(client, 'tree_economics', { name: '1' })).toBe(
      'African Juniper (level 1): a harvest sells for $714 and earns $645, $38,700 an hour; ' +
        'it needs no upgrade (a farm starts at level 1).',
    );
  });

  test('one tree near (a typo): that tree, saying which it took, as find_record takes it', async () => {
    expect(await textOf(client, 'tree_economics', { name: 'sequioa', plot: 3 })).toBe(
      'No tree is named "sequioa"; the nearest is Giant Sequoia (level 51), worked out here. ' +
        (await textOf(client, 'tree_economics', { name: 'Giant Sequoia', plot: 3 })),
    );
  });

  test('a miss: the nearest tree names, no tree, no figures', async () => {
    expect(await textOf(client, 'tree_economics', { name: 'gian' })).toBe(
      'No tree is named "gian"; the nearest are Giant Sequoia (level 51), Giant Yellow Mulberry (level 52) ' +
        '(ask again by one of these names).',
    );
    expect(await structured(client, 'tree_economics', { name: 'zzzzzzzz' })).toEqual({
      found: false,
      match: 'none',
      version: store.manifest.version,
      plot: { level: null, growthSpeed: 100 },
      tree: null,
      economics: null,
      suggestions: [],
    });
    expect(await textOf(client, 'tree_economics', { name: 'zzzzzzzz' })).toBe(
      'No tree matches "zzzzzzzz", and none is near it.',
    );
  });
});

describe('a tree that earns less per hour than the one below: its upgrade never pays back', () => {
  // American Arborvitae at $5 a log: 124 × $5 − $79 = $541 a 61 s harvest, $31,927.87 an hour,
  // less than African Juniper's $38,700.
  const poorer = { ...arborvitae, logValue: 5 };
  const poorerClient = clientOf({
    [listRoute('trees')]: envelope([juniper, poorer]),
    [levelRoute('trees', 2)]: envelope([poorer]),
  });

  test('plan: the next upgrade never pays back', async () => {
    expect(await textOf(await poorerClient, 'plan', { level: 1 })).toBe(
      '2 trees within reach; the best is African Juniper (level 1) at $38,700 an hour. ' +
        'Next upgrade: American Arborvitae (level 2) for $11,500, which never pays back.',
    );
  });

  test('tree_economics: its upgrade never pays back', async () => {
    expect(await textOf(await poorerClient, 'tree_economics', { name: 'American Arborvitae' })).toBe(
      'American Arborvitae (level 2): a harvest sells for $620 and earns $541, $31,928 an hour; ' +
        'reaching it costs $11,500 of upgrades; its upgrade never pays back.',
    );
  });
});

describe('changes', () => {
  const record = (kind: 'trees' | 'cutters', name: string, level: number) => ({ kind, name, level });
  const counts = { trees: 106, cutters: 8, gifts: 3, plots: 8, storages: 8, vehicles: 8 };
  const release = (id: string, changes: ReleaseSummary['changes']): ReleaseSummary => ({
    id,
    date: id.slice(0, 10),
    version: '0123456789abcdef',
    notes: `Release ${id}.`,
    counts,
    changes,
  });
  const logValue = { logValue: { from: 8, to: 9 } };
  // Newest first, as GET /api/releases lists them: the second release of 1 December, then two.
  const releases = [
    release('2026-12-02', {
      added: [record('trees', 'Young Oak', 107)],
      removed: [record('cutters', 'Fist', 1), record('cutters', 'Knife', 2)],
      changed: [
        { ...record('trees', 'American Arborvitae', 2), fields: logValue },
        { ...record('trees', 'American Beech', 3), fields: logValue },
        { ...record('trees', 'American Elm', 5), fields: logValue },
      ],
    }),
    release('2026-12-01-2', { added: [], removed: [record('trees', 'Apple Tree', 9)], changed: [] }),
    release('2026-12-01', { added: [record('trees', 'Apple Tree', 9)], removed: [], changed: [] }),
  ];
  const threeReleases = clientOf({ [RELEASES_ROUTE]: envelope(releases) });
  const noRelease = clientOf({ [RELEASES_ROUTE]: envelope([]) });
  const [newest, second, first] = [
    '2026-12-02 (1 added, 2 removed, 3 changed)',
    '2026-12-01-2 (0 added, 1 removed, 0 changed)',
    '2026-12-01 (1 added, 0 removed, 0 changed)',
  ];

  test('every release, newest first, with its counts of records added, removed and changed', async () => {
    expect(await textOf(await threeReleases, 'changes', {})).toBe(
      `3 releases, newest first: ${newest}; ${second}; ${first}.`,
    );
    // Eight changes in all: six of the newest, one of each release before it.
    expect(await structured(await threeReleases, 'changes', {})).toEqual({ releases, total: 8 });
  });

  test.each([
    [
      'the first release of a day: the later ones of that day and after',
      '2026-12-01',
      `2 releases, newest first: ${newest}; ${second}.`,
    ],
    [
      'a day with no release: the ones after it',
      '2026-11-30',
      `3 releases, newest first: ${newest}; ${second}; ${first}.`,
    ],
    ['the release before the newest: one release', '2026-12-01-2', `1 release, newest first: ${newest}.`],
    ['the newest: none after it', '2026-12-02', 'No release after 2026-12-02.'],
  ])('since %s', async (_case, since, text) => {
    expect(await textOf(await threeReleases, 'changes', { since })).toBe(text);
  });

  test('since: only the releases after it, in the data too', async () => {
    expect(await structured(await threeReleases, 'changes', { since: '2026-12-01-2' })).toEqual({
      releases: [releases[0]],
      total: 6,
    });
  });

  test('no release yet; and none after `since`', async () => {
    expect(await textOf(await noRelease, 'changes', {})).toBe('There are no data releases yet.');
    expect(await textOf(await noRelease, 'changes', { since: '2026-11-22' })).toBe('No release after 2026-11-22.');
  });

  test('a `since` of the right shape on no day of the calendar is no release id: refused, naming it', async () => {
    expect(await refusal(await threeReleases, 'changes', { since: '2026-02-30' })).toBe(
      'Invalid arguments for changes: since "2026-02-30": not a release id (no such day).',
    );
  });
});

const TOOL_NAMES = 'find_record, list_records, suggest, plan, tree_economics, changes';

describe('an unknown tool, an unknown method or malformed params: a JSON-RPC error that names it', () => {
  test('an unknown tool: -32602, with the names of the tools', async () => {
    expect(await callError(client, 'find_records', { kind: 'trees', query: 'oak' })).toEqual({
      code: -32602,
      message: `Unknown tool "find_records": the tools are ${TOOL_NAMES}.`,
    });
  });

  test.each([
    [
      'arguments that are a list',
      { name: 'find_record', arguments: [] },
      "arguments must be an object of the tool's arguments by name, got []",
    ],
    [
      'arguments that are text',
      { name: 'find_record', arguments: 'oak' },
      'arguments must be an object of the tool\'s arguments by name, got "oak"',
    ],
    ['no name', { arguments: {} }, `name must be the tool's name as text (${TOOL_NAMES}), got nothing`],
    ['a name that is a number', { name: 5 }, `name must be the tool's name as text (${TOOL_NAMES}), got 5`],
  ])('tools/call with %s: -32602 in one sentence', async (_case, params, named) => {
    expect(await requestError(client, 'tools/call', params)).toEqual({
      code: -32602,
      message: `Invalid params of tools/call: ${named}.`,
    });
  });

  const VERSION = 'protocolVersion must be an MCP version as text ("2025-11-25")';
  const CLIENT_INFO = { name: 'bot', version: '1.0' };
  test.each([
    [
      'a version that is a number',
      { protocolVersion: 20251125, capabilities: {}, clientInfo: CLIENT_INFO },
      `${VERSION}, got 20251125`,
    ],
    ['no version', { capabilities: {}, clientInfo: CLIENT_INFO }, `${VERSION}, got nothing`],
    [
      'capabilities that are a list',
      { protocolVersion: '2025-11-25', capabilities: [], clientInfo: CLIENT_INFO },
      "capabilities must be an object of the client's capabilities, got []",
    ],
    [
      'client info without a version',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bot' } },
      'clientInfo.version must be text, got nothing',
    ],
    [
      'a capability of the wrong type',
      { protocolVersion: '2025-11-25', capabilities: { roots: true }, clientInfo: CLIENT_INFO },
      'capabilities.roots must be an object, got true',
    ],
    ['no params', undefined, 'params must be an object, got nothing'],
  ])('initialize with %s: -32602 in one sentence, before the SDK answers it', async (_case, params, named) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params });
    const request = new Request(`${ORIGIN}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body,
    });
    const response = await answerMcp(request, store.index, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: `Invalid params of initialize: ${named}.` },
      id: 3,
    });
  });

  test.each([
    [
      'a prompt there is not',
      { ref: { type: 'ref/prompt', name: 'plan_garden' }, argument: { name: 'level', value: '1' } },
      'ref.name must be one of plan_farm, compare_records, whats_new, got "plan_garden"',
    ],
    [
      'a URI template there is not',
      { ref: { type: 'ref/resource', uri: 'treefarm://tree/{slug}' }, argument: { name: 'slug', value: 'oak' } },
      'ref.uri "treefarm://tree/{slug}" is no URI template or resource\'s URI: the resources are ' +
        'treefarm://{kind}/{slug} (kind one of trees, cutters, gifts, plots, storages, vehicles) and ' +
        'treefarm://releases/{id}',
    ],
    [
      'a resource there is not',
      { ref: { type: 'ref/resource', uri: 'treefarm://trees/no-such-tree' }, argument: { name: 'slug', value: '' } },
      'ref.uri "treefarm://trees/no-such-tree" is no URI template or resource\'s URI: the resources are ' +
        'treefarm://{kind}/{slug} (kind one of trees, cutters, gifts, plots, storages, vehicles) and ' +
        'treefarm://releases/{id}',
    ],
  ])('completion of %s: -32602 in one sentence, as prompts/get says of the same name', async (_case, params, named) => {
    expect(await requestError(client, 'completion/complete', params)).toEqual({
      code: -32602,
      message: `Invalid params of completion/complete: ${named}.`,
    });
  });

  test('completion of a resource there is (no variable to complete): no values, no error', async () => {
    const { completion } = await client.complete({
      ref: { type: 'ref/resource', uri: 'treefarm://trees/giant-sequoia' },
      argument: { name: 'slug', value: '' },
    });
    expect(completion.values).toEqual([]);
  });

  test('prompts/get of a prompt there is not: -32602 naming the prompts', async () => {
    expect(await requestError(client, 'prompts/get', { name: 'plan_garden' })).toEqual({
      code: -32602,
      message:
        'Invalid params of prompts/get: name must be one of plan_farm, compare_records, whats_new, got "plan_garden".',
    });
  });

  test('an unknown method: -32601, naming it and the methods there are', async () => {
    expect(await requestError(client, 'treefarm/records', {})).toEqual({
      code: -32601,
      message:
        'Unknown method "treefarm/records": this server answers server/discover, initialize, ping, tools/list, ' +
        'tools/call, resources/list, resources/templates/list, resources/read, prompts/list, prompts/get and ' +
        'completion/complete.',
    });
  });
});

describe('arguments refused: a result flagged isError naming the argument and what it expects', () => {
  const KINDS = 'expected one of trees, cutters, gifts, plots, storages, vehicles';
  const QUERY = 'expected a name or alias as text ("giant sequoia") or a level as a whole number from 1';
  const RELEASE =
    'expected a release id as text: YYYY-MM-DD, then -2, -3 for later releases of that day ' +
    '(the changes tool lists them)';

  test.each([
    ['a missing argument', { kind: 'trees' }, `query: ${QUERY}, got nothing`],
    ['no arguments at all: each one missing', undefined, `kind: ${KINDS}, got nothing; query: ${QUERY}, got nothing`],
    ['a kind that is none', { kind: 'tree', query: 'oak' }, `kind: ${KINDS}, got "tree"`],
    ['a wrong type', { kind: 'trees', query: true }, `query: ${QUERY}, got true`],
    ['a null', { kind: 'trees', query: null }, `query: ${QUERY}, got null`],
    ['a level number below 1', { kind: 'trees', query: 0 }, `query: ${QUERY}, got 0`],
    [
      'a query too long',
      { kind: 'trees', query: 'o'.repeat(101) },
      `query: expected at most 100 characters, got "${'o'.repeat(39)}…`,
    ],
    [
      'one unknown argument',
      { kind: 'trees', query: 'oak', colour: 'red' },
      'unknown argument colour (the arguments are kind, query, release, limit, cursor)',
    ],
    [
      'several unknown arguments',
      { kind: 'trees', query: 'oak', colour: 'red', size: 3 },
      'unknown arguments colour, size (the arguments are kind, query, release, limit, cursor)',
    ],
    [
      'two wrong arguments, each named',
      { kind: 'tree', query: 'oak', release: 'yesterday' },
      `kind: ${KINDS}, got "tree"; release: ${RELEASE}, got "yesterday"`,
    ],
    [
      'a release that does not exist',
      { kind: 'trees', query: 'oak', release: '1999-01-01' },
      'release "1999-01-01": no data release has that id (the changes tool lists them)',
    ],
  ])('find_record, %s', async (_case, args, named) => {
    expect(await refusal(client, 'find_record', args)).toBe(`Invalid arguments for find_record: ${named}.`);
  });

  test('a plot level no plot has, with the levels there are', async () => {
    expect(await refusal(client, 'plan', { level: 1, plot: 999 })).toBe(
      'Invalid arguments for plan: plot: no plot has level 999: the levels are 1 to 8.',
    );
  });

  test.each([
    ['0', 0],
    ['text that is no digits', 'five'],
    ['a fraction', 2.5],
  ])('a level that is %s: a whole number from 1, as a number or digits', async (_case, level) => {
    expect(await refusal(client, 'plan', { level })).toBe(
      'Invalid arguments for plan: level: expected a level, a whole number from 1 (a number or digits), ' +
        `got ${JSON.stringify(level)}.`,
    );
  });

  test('money below 0', async () => {
    expect(await refusal(client, 'plan', { level: 1, money: -1 })).toBe(
      'Invalid arguments for plan: money: expected in-game dollars, a number from 0, got -1.',
    );
  });

  test.each([107, 1e15])('plan at level %s, past the top: the levels there are (106 in the content)', async (level) => {
    expect(await refusal(client, 'plan', { level })).toBe(
      `Invalid arguments for plan: level: no farm level ${level}: the levels are 1 to 106.`,
    );
  });

  test("the top level is the data's: with two trees, level 3 is past it", async () => {
    const twoTrees = await clientOf({ [listRoute('trees')]: envelope([juniper, arborvitae]) });
    expect(await refusal(twoTrees, 'plan', { level: 3 })).toBe(
      'Invalid arguments for plan: level: no farm level 3: the levels are 1 to 2.',
    );
  });

  test('runTool: a ToolInputError that names the argument', async () => {
    const failure = runTool(store.index, 'tree_economics', { name: 'oak tree', plot: 0 });
    await expect(failure).rejects.toBeInstanceOf(ToolInputError);
    await expect(failure).rejects.toMatchObject({
      name: 'ToolInputError',
      message: 'plot: no plot has level 0: the levels are 1 to 8',
    });
  });
});

describe("a tool's arguments are its own: none of the API's query words", () => {
  test.each(['null', 'undefined', 'NULL', ' null '])('find_record looks for %j as a name: a miss', async (query) => {
    expect(await structured(client, 'find_record', { kind: 'trees', query })).toMatchObject({
      found: false,
      records: [],
    });
    expect(await textOf(client, 'find_record', { kind: 'trees', query })).toBe(
      `No tree matches "${query.trim()}", and none is near it.`,
    );
  });

  test('tree_economics looks for "null" as a name: no tree, no figures', async () => {
    expect(await structured(client, 'tree_economics', { name: 'null' })).toMatchObject({
      found: false,
      tree: null,
      economics: null,
    });
  });

  test('suggest looks for "null" as text: no suggestions (not the first 25)', async () => {
    expect(await textOf(client, 'suggest', { kind: 'trees', text: 'null' })).toBe('No suggestions for "null".');
  });

  test.each([
    ['find_record', { kind: 'trees', query: ' ' }, 'query', 'list_records lists every record'],
    ['find_record', { kind: 'trees', query: '' }, 'query', 'list_records lists every record'],
    ['tree_economics', { name: '  ' }, 'name', 'list_records lists every tree'],
  ])('%s with a blank %j: refused, naming what to give', async (tool, args, argument, all) => {
    expect(await refusal(client, tool, args)).toBe(
      `Invalid arguments for ${tool}: ${argument}: expected a name or alias ("giant sequoia") or a level ("5"), ` +
        `got a blank text (${all}).`,
    );
  });
});

describe('a level as a number or as digits', () => {
  test('find_record: 5 as a number is "5"', async () => {
    expect(await textOf(client, 'find_record', { kind: 'trees', query: 5 })).toBe(
      'Found 1 tree for "5": American Elm (level 5).',
    );
  });

  test('tree_economics: 1 as a number is the level 1 tree', async () => {
    expect(await structured(client, 'tree_economics', { name: 1 })).toMatchObject({
      found: true,
      tree: expect.objectContaining({ name: 'African Juniper', level: 1 }),
    });
  });

  test('suggest: 5 as a number is "5"', async () => {
    expect(await structured(client, 'suggest', { kind: 'trees', text: 5 })).toEqual(
      await structured(client, 'suggest', { kind: 'trees', text: '5' }),
    );
  });

  test('plan: the level and the plot as digits answer as numbers', async () => {
    expect(await structured(client, 'plan', { level: '2', plot: ' 3 ' })).toEqual(
      await structured(client, 'plan', { level: 2, plot: 3 }),
    );
  });

  test.each([
    ['find_record', { kind: 'trees', query: 107 }],
    ['find_record', { kind: 'trees', query: '107' }],
    ['tree_economics', { name: 107 }],
  ])('%s %j past the top level: a miss that says the top level', async (tool, args) => {
    expect(await textOf(client, tool, args)).toBe('No tree has level 107: the top level is 106.');
  });

  test('the top level of the kind asked for: cutters end at 8', async () => {
    expect(await textOf(client, 'find_record', { kind: 'cutters', query: 9 })).toBe(
      'No cutter has level 9: the top level is 8.',
    );
  });
});

test('data that cannot be read: a JSON-RPC internal error that says so, without the internals', async () => {
  const damaged: RouteIndex = {
    ...store.index,
    text: () => Promise.reject(new Error('bodies.pack: unexpected end of file')),
  };
  expect(
    await callError(await memoryClient(createMcpServer(damaged, ORIGIN)), 'list_records', { kind: 'trees' }),
  ).toEqual({
    code: -32603,
    message: 'list_records could not read the data to answer; try again later.',
  });
});

describe('the server', () => {
  const CAPABILITIES = {
    tools: { listChanged: false },
    resources: { listChanged: false, subscribe: false },
    prompts: { listChanged: false },
    completions: {},
  };

  test('states its capabilities, every list fixed (listChanged false), completion offered', async () => {
    // A server of its own: the module's client connected before a mutation run switches a mutant on.
    const connected = await memoryClient(createMcpServer(store.index, ORIGIN));
    expect(connected.getServerCapabilities()).toEqual(CAPABILITIES);
  });

  test('initialize answers the version asked if it speaks it, else its newest 2025 one', async () => {
    const initialize = async (protocolVersion: string) => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createMcpServer(store.index, ORIGIN).connect(serverSide);
      const answered = new Promise<JSONRPCMessage>((resolve) => {
        clientSide.onmessage = resolve;
      });
      await clientSide.start();
      const params = { protocolVersion, capabilities: {}, clientInfo: { name: 'bot', version: '1' } };
      await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
      return ((await answered) as { result: Record<string, unknown> }).result;
    };
    const older = await initialize('2025-06-18');
    expect(older['protocolVersion']).toBe('2025-06-18');
    expect(older['serverInfo']).toEqual({ name: 'treefarm-data', title: 'Tree farm data', version: '1.0.0' });
    expect(older['capabilities']).toEqual(CAPABILITIES);
    expect(older['instructions']).toMatch(/^Reference data of a tree-farming game/);
    expect((await initialize('1999-01-01'))['protocolVersion']).toBe('2025-11-25');
  });

  test('annotates each tool read-only, idempotent, not destructive, in a closed world, titled', async () => {
    const { tools } = await client.listTools();
    const titles = [
      'Find a record',
      'List every record of a kind',
      'Suggest names',
      'Plan the next trees',
      "One tree's economics",
      'Data releases and their changes',
    ];
    expect(tools.map(({ title, annotations }) => ({ title, annotations }))).toEqual(
      titles.map((title) => ({
        title,
        annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      })),
    );
  });

  test("asks no client for input: the SDK's validator is never built, a form's answer is refused", async () => {
    const server = createMcpServer(store.index, ORIGIN);
    const filling = new Client({ name: 'filling', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    let asked = 0;
    filling.setRequestHandler('elicitation/create', () => {
      asked++;
      return { action: 'accept', content: { name: 'oak' } };
    });
    await memoryClient(server, filling);
    await expect(
      server.elicitInput({
        message: 'Which tree?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      }),
    ).rejects.toThrow('this server asks no client for input');
    expect(asked).toBe(1);
  });
});

describe('portable schemas (what the Inspector --strict checks)', () => {
  /** Each schema under `schema` with its path: the schema itself, its properties, items and branches. */
  function* schemasOf(schema: Record<string, unknown>, path: string): Generator<[string, Record<string, unknown>]> {
    yield [path, schema];
    const children: [string, unknown][] = [];
    for (const [name, child] of Object.entries((schema['properties'] as object) ?? {}))
      children.push([`${path}.${name}`, child]);
    for (const key of ['items', 'additionalProperties'])
      if (typeof schema[key] === 'object' && !Array.isArray(schema[key]))
        children.push([`${path}.${key}`, schema[key]]);
    for (const [at, branch] of ((schema['anyOf'] as unknown[]) ?? []).entries())
      children.push([`${path}|${at}`, branch]);
    for (const [at, item] of ((schema['items'] as unknown[]) ?? []).entries?.() ?? [])
      children.push([`${path}[${at}]`, item]);
    for (const [at, child] of children) yield* schemasOf(child as Record<string, unknown>, at);
  }

  test('no type is a list of types, and every field has a type (or typed branches)', async () => {
    const { tools } = await client.listTools();
    const faults: string[] = [];
    for (const tool of tools)
      for (const schema of [tool.inputSchema, tool.outputSchema ?? {}])
        for (const [path, each] of schemasOf(schema as Record<string, unknown>, tool.name)) {
          if (Array.isArray(each['type'])) faults.push(`${path}: type ${JSON.stringify(each['type'])}`);
          if (!('type' in each) && !('anyOf' in each) && !('enum' in each) && !('const' in each))
            faults.push(`${path}: untyped`);
        }
    expect(faults).toEqual([]);
  });

  test("a release's changed field is typed as a record's values: text, a number, a range or null", async () => {
    const { tools } = await client.listTools();
    const changes = JSON.stringify(tools.find((tool) => tool.name === 'changes')?.outputSchema);
    expect(changes).toContain(
      '"from":{"anyOf":[{"type":"string"},{"type":"number"},' +
        '{"type":"array","items":{"type":"number"}},{"type":"null"}]}',
    );
  });
});
