// What a message to the MCP server must be, word for word (src/apps/mcp/messages.ts): a
// cursor of the wrong type in any list, a malformed `_meta` in any request, a member JSON-RPC
// does not have, each a JSON-RPC error naming the fault in one sentence (never zod's issue
// list, never an internal error), in both eras, through POST /mcp's handler in this process.
// The same for every runtime and client: clients.test.ts; over stdio, line by line:
// stdio.test.ts; in workerd: worker.test.ts.
import { describe, expect, test } from 'vitest';
import { answerMcp } from '../../src/apps/mcp/answer.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { ERAS, type Era, eraHeaders, eraRequest } from '../support/mcp.ts';
import { distDir } from '../support/runtimes.ts';

const store = await loadBodyStore(distDir);
const LISTS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];

/** A request of `era` POSTed to /mcp in this process (id 7): the HTTP status and the JSON-RPC answer. */
async function post(
  era: Era,
  method: string,
  params: Record<string, unknown>,
  message: object = eraRequest(era, method, params, 7),
) {
  const request = new Request('http://127.0.0.1:4321/mcp', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...eraHeaders(era, method),
    },
    body: JSON.stringify(message),
  });
  const response = await answerMcp(request, store.index, {});
  return { status: response.status, answer: await response.json() };
}

const invalidParams = (message: string, id: number | null = 7) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32602, message },
});

describe.each(ERAS)('in the %s era', (era) => {
  test.each(LISTS)('%s with a cursor that is no text: -32602 naming the cursor and what it was', async (method) => {
    for (const [cursor, got] of [
      [{}, '{}'],
      [5, '5'],
      [null, 'null'],
    ])
      expect(await post(era, method, { cursor })).toEqual({
        status: 200,
        answer: invalidParams(
          `Invalid params of ${method}: cursor must be the nextCursor a page of this list gave, as text, got ${got}.`,
        ),
      });
  });

  test.each(['ping', 'tools/list', 'resources/read', 'tools/call'])(
    '%s with a _meta that is no object: 400, -32602 naming it, before any server reads it',
    async (method) => {
      expect(await post(era, method, { _meta: 5 })).toEqual({
        status: 400,
        answer: invalidParams(`Invalid params of ${method}: _meta must be an object, got 5.`),
      });
    },
  );

  test('a progress token that is neither text nor a whole number: 400, -32602 naming it', async () => {
    expect(await post(era, 'resources/list', { _meta: { progressToken: { at: 1 } } })).toEqual({
      status: 400,
      answer: invalidParams(
        'Invalid params of resources/list: _meta.progressToken must be text or a whole number, got {"at":1}.',
      ),
    });
  });

  test('a member JSON-RPC has not: 400, -32600 naming it', async () => {
    const message = { ...eraRequest(era, 'tools/list', {}, 7), cursor: 'next' };
    expect(await post(era, 'tools/list', {}, message)).toEqual({
      status: 400,
      answer: {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Invalid request: unknown member "cursor" in the message.' },
      },
    });
  });
});

test('a notification with a malformed _meta: the error names it, with no id (it had none)', async () => {
  const notification = { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: [] } };
  expect(await post('legacy', 'notifications/initialized', {}, notification)).toEqual({
    status: 400,
    answer: invalidParams('Invalid params of notifications/initialized: _meta must be an object, got [].', null),
  });
});
