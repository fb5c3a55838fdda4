// `treefarm mcp --bundle <file>` driven by the SDK's own client over stdio: the same tools,
// answered offline from a verified bundle, equal to what /mcp answers online for the same
// build; a bundle that fails its check, or none given, is refused before anything is served.
// Runs the CLI's source (src/client/cli/bin.ts) on this Node; test/client/cli.test.ts runs the
// packed command.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import {
  ERAS,
  eraRequest,
  httpClient,
  type McpClient,
  rawStdio,
  refusal,
  requestError,
  stdioClient,
  structured,
} from '../support/mcp.ts';
import { distDir, startRuntime, type Runtime } from '../support/runtimes.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const TOKEN = 'mcp-stdio-token';
const BIN = join(projectDir, 'src', 'client', 'cli', 'bin.ts');
const version = loadContent(join(projectDir, 'content')).version;
const bundle = join(distDir, 'downloads', bundleFileName(version, 'tar.gz'));

let offline: McpClient;
let online: McpClient;
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime('node', { tokens: [TOKEN] });
  // Wiki links to the site the bundle came from: the runtime's, so both answer alike.
  offline = await stdioClient(process.execPath, [BIN, 'mcp', '--bundle', bundle, '--url', runtime.url]);
  online = await httpClient(runtime.url, TOKEN);
});
afterAll(async () => {
  await Promise.all([offline?.close(), online?.close()]);
  await runtime?.close();
});

test('offline, the same tools with the same schemas as /mcp', async () => {
  expect((await offline.listTools()).tools).toEqual((await online.listTools()).tools);
});

test.each([
  ['find_record', { kind: 'trees', query: 'giant sequoia' }],
  ['find_record', { kind: 'trees', query: 'sequioa' }],
  ['find_record', { kind: 'gifts', query: '4' }],
  ['list_records', { kind: 'storages' }],
  ['suggest', { kind: 'trees', text: 'croton' }],
  ['plan', { level: 3, plot: 2, money: 100_000 }],
  ['tree_economics', { name: 'oak tree', plot: 4 }],
  ['changes', {}],
])('offline %s %j answers as /mcp does online', async (name, args) => {
  expect(await structured(offline, name, args)).toEqual(await structured(online, name, args));
});

test('offline, a wrong argument is the same refusal (isError), naming the argument', async () => {
  const refused = (client: McpClient) => refusal(client, 'suggest', { kind: 'trees' });
  const [local, remote] = await Promise.all([refused(offline), refused(online)]);
  expect(local).toBe(remote);
  expect(local).toMatch(/^Invalid arguments for suggest: text: expected /);
});

test('offline, "null" is a name to look for as online, never the whole list', async () => {
  const args = { kind: 'trees', query: 'null' };
  expect(await structured(offline, 'find_record', args)).toEqual(await structured(online, 'find_record', args));
  expect(await structured(offline, 'find_record', args)).toMatchObject({ found: false, records: [] });
});

test('offline, malformed tools/call params are the same JSON-RPC error -32602', async () => {
  const params = { name: 'find_record', arguments: [] };
  const [local, remote] = await Promise.all([
    requestError(offline, 'tools/call', params),
    requestError(online, 'tools/call', params),
  ]);
  expect(local).toEqual(remote);
  expect(local.code).toBe(-32602);
});

describe.each(ERAS)('offline, in the %s era, a message /mcp would refuse', (era) => {
  /** The client's opening message of the era: initialize (2025-11-25), or server/discover (2026-07-28). */
  const opening =
    era === 'legacy'
      ? {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }
      : eraRequest(era, 'server/discover', {}, 0);
  let server: ReturnType<typeof rawStdio>;
  beforeAll(async () => {
    server = rawStdio(process.execPath, [BIN, 'mcp', '--bundle', bundle]);
    expect(await server.send(opening)).toEqual([expect.objectContaining({ id: 0, result: expect.anything() })]);
  });
  afterAll(() => server?.close());

  test.each([
    [
      'params that are no object',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}',
      -32602,
      'Invalid params of tools/list: params must be an object, got [].',
    ],
    [
      'a _meta that is no object',
      JSON.stringify(eraRequest(era, 'tools/list', { _meta: 5 })),
      -32602,
      'Invalid params of tools/list: _meta must be an object, got 5.',
    ],
    [
      'a progress token of the wrong type',
      JSON.stringify(
        eraRequest(era, 'resources/read', { uri: 'treefarm://trees/oak-tree', _meta: { progressToken: true } }),
      ),
      -32602,
      'Invalid params of resources/read: _meta.progressToken must be text or a whole number, got true.',
    ],
    [
      'a member JSON-RPC has not',
      JSON.stringify({ ...eraRequest(era, 'ping'), extra: 1 }),
      -32600,
      'Invalid request: unknown member "extra" in the message.',
    ],
  ])(
    '%s: answered with a JSON-RPC error naming it (the SDK alone drops it unanswered)',
    async (_case, line, code, message) => {
      expect(await server.send(line)).toEqual([{ jsonrpc: '2.0', id: 1, error: { code, message } }]);
    },
  );

  test('a line that is no JSON, and a batch: answered, with no id', async () => {
    const [notJson, batch] = await server.send('{"jsonrpc":', `[${JSON.stringify(eraRequest(era, 'ping'))}]`);
    expect(notJson).toMatchObject({
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error: the body is not JSON \(/) },
    });
    expect(batch).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Batches are not accepted (MCP 2025-06-18 removed JSON-RPC batching): send one message per request.',
      },
    });
  });

  test('a cursor of the wrong type: -32602 naming it, as online', async () => {
    expect(await server.send(eraRequest(era, 'prompts/list', { cursor: 7 }, 2))).toEqual([
      expect.objectContaining({
        id: 2,
        error: {
          code: -32602,
          message:
            'Invalid params of prompts/list: cursor must be the nextCursor a page of this list gave, as text, got 7.',
        },
      }),
    ]);
  });
});

/** The CLI run to its end: exit status and stderr. */
function treefarm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

test('a file that is not a verified bundle is refused before anything is served (exit 2, one line)', async () => {
  const dir = temporaryFolder('treefarm-mcp-');
  try {
    const fake = join(dir, 'fake.tar.gz');
    writeFileSync(fake, 'not a bundle');
    const outcome = await treefarm(['mcp', '--bundle', fake]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr.trimEnd().split('\n')).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mcp without --bundle is a usage error that says to give one', async () => {
  const outcome = await treefarm(['mcp']);
  expect(outcome.code).toBe(2);
  expect(outcome.stderr).toContain('mcp serves a bundle: give it with --bundle <file>');
});
