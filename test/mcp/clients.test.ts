// Every kind of MCP client an assistant may use, against every way the server is served: the
// official v2 client pinned to 2026-07-28, the same client in its legacy mode (2025-11-25 after
// initialize) and the v1 SDK's client, on the Node server, the Worker (static assets and R2)
// and `treefarm mcp --bundle` over stdio. Each passes the same tests: the tools, the resources
// and their templates, the prompts and completion; over HTTP an answer without a token is the
// 401. The details of each tool are tools.test.ts's and http.test.ts's.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { RESOURCE_PAGE_SIZE } from '../../src/apps/mcp/resources.ts';
import { viewNames } from '../../src/apps/mcp/views.ts';
import {
  apiAnswer,
  CLIENT_KINDS,
  type ClientKind,
  httpClient,
  type McpClient,
  postMcp,
  requestError,
  resourcePage,
  stdioClient,
  structured,
  toolCall,
} from '../support/mcp.ts';
import { contractRuntimeNames, distDir, type Runtime, startRuntime } from '../support/runtimes.ts';

const TOKEN = 'mcp-clients-token';
const TOOLS = ['find_record', 'list_records', 'suggest', 'plan', 'tree_economics', 'changes'];
const PROMPTS = ['plan_farm', 'compare_records', 'whats_new'];
const KINDS = ['trees', 'cutters', 'gifts', 'plots', 'storages', 'vehicles'];
const BIN = join(projectDir, 'src', 'client', 'cli', 'bin.ts');
const bundle = join(distDir, 'downloads', bundleFileName(loadContent(join(projectDir, 'content')).version, 'tar.gz'));

/** A JSON-RPC error as one sentence: the v1 client puts "MCP error <code>: " before the server's message. */
const sentence = ({ code, message }: { code: number; message: string }) => ({
  code,
  message: message.replace(/^MCP error -?\d+: /, ''),
});

type Served = 'node' | 'worker' | 'worker-r2' | 'stdio';
const SERVED: readonly Served[] = [...contractRuntimeNames, 'stdio'];

describe.each(SERVED)('served by %s', (served) => {
  /** The Node server or Worker served; for stdio, the Node server the bundle's data is compared with. */
  let runtime: Runtime;
  const clients = new Map<ClientKind, McpClient>();

  beforeAll(async () => {
    runtime = await startRuntime(served === 'stdio' ? 'node' : served, { tokens: [TOKEN] });
    for (const kind of CLIENT_KINDS)
      clients.set(
        kind,
        served === 'stdio'
          ? await stdioClient(process.execPath, [BIN, 'mcp', '--bundle', bundle, '--url', runtime.url], kind)
          : await httpClient(runtime.url, TOKEN, kind),
      );
  }, 180_000);
  afterAll(async () => {
    await Promise.all([...clients.values()].map((client) => client.close()));
    await runtime?.close();
  });

  const api = (path: string) => apiAnswer(runtime.url, TOKEN, path);
  const clientOf = (kind: ClientKind) => clients.get(kind) as McpClient;

  describe.each(CLIENT_KINDS)('the %s client', (kind) => {
    test('lists the six tools, and find_record answers with the records of GET /api/trees?search=', async () => {
      const client = clientOf(kind);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS);
      const answer = await structured(client, 'find_record', { kind: 'trees', query: 'giant sequoia' });
      expect(answer.records).toEqual((await api('/api/trees?search=giant%20sequoia')).data);
    });

    test('lists every record, release and MCP Apps view as a resource, a page at a time, each URI once', async () => {
      const client = clientOf(kind);
      const uris: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await resourcePage(client, cursor);
        expect(page.resources.length).toBeLessThanOrEqual(RESOURCE_PAGE_SIZE);
        uris.push(...page.resources.map((resource) => resource.uri));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 100);
      let expected = (await api('/api/releases')).data.length + viewNames.length;
      for (const each of KINDS) expected += (await api(`/api/${each}`)).data.length;
      expect(uris).toHaveLength(expected);
      expect(new Set(uris).size).toBe(expected);
      expect(pages).toBe(Math.ceil(expected / RESOURCE_PAGE_SIZE));
      expect(uris).toContain('treefarm://trees/giant-sequoia');
      expect(uris).toContain('ui://treefarm/planner.html');
      // The official client's own walk of the pages (the v1 client's gives the first page).
      if (kind !== 'v1') expect((await client.listResources()).resources).toHaveLength(expected);
    });

    test('reads a record resource: the record as the API serves it, its wiki link, the data version', async () => {
      const { contents } = await clientOf(kind).readResource({ uri: 'treefarm://trees/giant-sequoia' });
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({ uri: 'treefarm://trees/giant-sequoia', mimeType: 'application/json' });
      const [sequoia] = (await api('/api/trees?search=giant%20sequoia')).data;
      expect(JSON.parse(contents[0]?.text ?? '')).toEqual({
        record: sequoia,
        wiki: `${runtime.url}/trees/giant-sequoia/`,
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    });

    test('offers the URI templates (one a kind, one for releases) and completes their variables', async () => {
      const client = clientOf(kind);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template['uriTemplate'])).toEqual([
        ...KINDS.map((each) => `treefarm://${each}/{slug}`),
        'treefarm://releases/{id}',
      ]);
      const { completion } = await client.complete({
        ref: { type: 'ref/resource', uri: 'treefarm://trees/{slug}' },
        argument: { name: 'slug', value: 'giant-s' },
      });
      expect(completion.values).toEqual(['giant-sequoia']);
    });

    test('offers the prompts, and plan_farm answers with the planner for the level and money', async () => {
      const client = clientOf(kind);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt['name'])).toEqual(PROMPTS);
      const { messages } = await client.getPrompt({ name: 'plan_farm', arguments: { level: '3', money: '50000' } });
      const plan = await structured(client, 'plan', { level: 3, money: 50_000 });
      expect(messages).toHaveLength(1);
      expect(JSON.stringify(messages[0])).toContain(JSON.stringify(JSON.stringify(plan)).slice(1, -1));
    });

    test('compare_records embeds both records as resources; its arguments complete from the data', async () => {
      const client = clientOf(kind);
      const { messages } = await client.getPrompt({
        name: 'compare_records',
        arguments: { kind: 'trees', first: 'oak tree', second: 'giant sequoia' },
      });
      const embedded = messages
        .slice(1)
        .map((message) => (message['content'] as { resource: { uri: string } }).resource);
      expect(embedded.map((resource) => resource.uri)).toEqual([
        'treefarm://trees/oak-tree',
        'treefarm://trees/giant-sequoia',
      ]);
      const { completion } = await client.complete({
        ref: { type: 'ref/prompt', name: 'compare_records' },
        argument: { name: 'first', value: 'sequ' },
        context: { arguments: { kind: 'trees' } },
      });
      const suggested = (await api('/api/trees/suggest?search=sequ')).data as { name: string }[];
      expect(completion.values).toEqual(suggested.map((each) => each.name));
      expect(completion.values).toContain('Giant Sequoia');
    });

    test('malformed params of each list and read method: -32602 naming the fault in one sentence', async () => {
      const client = clientOf(kind);
      const cursor = 'cursor must be the nextCursor a page of this list gave, as text';
      const malformed: [string, Record<string, unknown>, string][] = [
        ['tools/list', { cursor: {} }, `${cursor}, got {}`],
        ['prompts/list', { cursor: 5 }, `${cursor}, got 5`],
        ['resources/list', { cursor: ['next'] }, `${cursor}, got ["next"]`],
        ['resources/templates/list', { cursor: null }, `${cursor}, got null`],
        ['resources/read', { uri: 5 }, "uri must be a resource's URI as text, got 5"],
        ['prompts/get', { name: 5 }, `name must be one of ${PROMPTS.join(', ')}, got 5`],
      ];
      for (const [method, params, named] of malformed)
        expect(sentence(await requestError(client, method, params))).toEqual({
          code: -32602,
          message: `Invalid params of ${method}: ${named}.`,
        });
    });

    test('completion of a prompt or URI template there is not: -32602, as prompts/get says', async () => {
      const client = clientOf(kind);
      const prompt = { ref: { type: 'ref/prompt', name: 'plan_garden' }, argument: { name: 'level', value: '1' } };
      expect(sentence(await requestError(client, 'completion/complete', prompt))).toEqual({
        code: -32602,
        message:
          `Invalid params of completion/complete: ref.name must be one of ${PROMPTS.join(', ')}, ` +
          'got "plan_garden".',
      });
      const template = {
        ref: { type: 'ref/resource', uri: 'treefarm://tree/{slug}' },
        argument: { name: 'slug', value: '' },
      };
      const refused = sentence(await requestError(client, 'completion/complete', template));
      expect(refused.code).toBe(-32602);
      expect(refused.message).toMatch(
        /^Invalid params of completion\/complete: ref.uri "treefarm:\/\/tree\/\{slug\}" is no /,
      );
    });
  });

  if (served !== 'stdio')
    test('without a token: 401, and no client of any kind connects', async () => {
      expect((await postMcp(runtime.url, toolCall('list_records', { kind: 'trees' }))).status).toBe(401);
      for (const kind of CLIENT_KINDS)
        await expect(httpClient(runtime.url, undefined, kind), kind).rejects.toThrow(/401|Unauthorized|token/i);
    });
});
