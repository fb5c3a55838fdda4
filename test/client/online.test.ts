// The online client against the local server, and against the offline client: one query
// set, identical answers. Plus what the online client sends and how it reports errors.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { loadContent, type Content } from '../../src/build/content.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { ApiError, AuthError, createClient, NotFoundError, openBundle, TreefarmError } from '../../src/client/index.ts';
import { TOKEN_INVALID_BODY, TOKEN_REQUIRED_BODY } from '../../src/contract/messages.ts';
import { distDir, startRuntime, type Runtime } from '../support/runtimes.ts';
import { outcomesOf, querySet } from '../support/query-set.ts';

const TOKEN = 'client-test-token';
const messageOf = (body: string) => (JSON.parse(body) as { message: string }).message;

let runtime: Runtime;
let content: Content;
beforeAll(async () => {
  runtime = await startRuntime('node', { tokens: [TOKEN] });
  content = loadContent(join(projectDir, 'content'));
});
afterAll(() => runtime?.close());

test.each(['tar.gz', 'zip'] as const)(
  'one query set answers identically online (local server) and offline (%s bundle), as the contract says',
  async (format) => {
    const queries = querySet(content);
    const online = await outcomesOf(createClient({ baseUrl: runtime.url, token: TOKEN }), queries);
    const offline = await outcomesOf(
      await openBundle(join(distDir, 'downloads', bundleFileName(content.version, format))),
      queries,
    );
    queries.forEach(({ kind, search, expected }, index) => {
      expect({ kind, search, online: online[index], offline: offline[index] }).toEqual({
        kind,
        search,
        online: expected,
        offline: expected,
      });
    });
  },
);

describe('authentication', () => {
  test('a missing token is an AuthError with the API message', async () => {
    const error = await createClient({ baseUrl: runtime.url, token: '' })
      .trees()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 401, message: messageOf(TOKEN_REQUIRED_BODY) });
  });

  test('a token the server does not know is an AuthError with the API message', async () => {
    const client = createClient({ baseUrl: runtime.url, token: 'not-the-token' });
    const error = await client.storages('Chest').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 401, message: messageOf(TOKEN_INVALID_BODY) });
  });
});

describe('requests', () => {
  /** A fetch that records each request and answers with `status` and `body`. */
  function recordingFetch(status: number, body: string) {
    const requests: { url: string; headers: Headers }[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      requests.push({ url: request.url, headers: request.headers });
      return new Response(body, { status, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    };
    return { fetch: fetch as typeof globalThis.fetch, requests };
  }
  const found = JSON.stringify({ error: false, message: 'The requested tree data was successfully found.', data: [] });

  test('the token goes in Authorization as Bearer, the search as a URLSearchParams query', async () => {
    const { fetch, requests } = recordingFetch(200, found);
    const client = createClient({ baseUrl: 'https://treefarm.example', token: 'secret', fetch });
    await client.trees('Oak Tree & co');
    await client.trees();
    await client.plots(3);
    expect(requests.map((request) => request.url)).toEqual([
      `https://treefarm.example/api/trees?${new URLSearchParams({ search: 'Oak Tree & co' })}`,
      'https://treefarm.example/api/trees',
      'https://treefarm.example/api/plots?search=3',
    ]);
    for (const request of requests) {
      expect(request.headers.get('authorization')).toBe('Bearer secret');
      expect(request.headers.get('accept')).toBe('application/json');
    }
  });

  test('suggest asks /api/{kind}/suggest with the text as search, and returns the entries', async () => {
    const entries = [{ name: 'Giant Sequoia', level: 51 }];
    const body = JSON.stringify({ error: false, message: 'Suggestions for the requested tree.', data: entries });
    const { fetch, requests } = recordingFetch(200, body);
    const client = createClient({ baseUrl: 'https://treefarm.example', token: 'secret', fetch, release: '2026-11-22' });
    expect(await client.suggest('trees', 'gaint seq')).toEqual(entries);
    expect(await client.suggest('plots')).toEqual(entries);
    expect(requests.map((request) => request.url)).toEqual([
      'https://treefarm.example/api/trees/suggest?search=gaint+seq&release=2026-11-22',
      'https://treefarm.example/api/plots/suggest?release=2026-11-22',
    ]);
  });

  test('a suggestion answer that is not a 200 with a list is an error with the API message', async () => {
    const unknownRelease = recordingFetch(404, JSON.stringify({ error: true, message: 'No such release.' }));
    const error = await createClient({ baseUrl: 'https://x.example', token: 't', fetch: unknownRelease.fetch })
      .suggest('trees', 'oak')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, message: 'No such release.', kind: 'trees', search: 'oak' });
    const noList = recordingFetch(200, JSON.stringify({ error: false, message: 'odd' }));
    await expect(
      createClient({ baseUrl: 'https://x.example', token: 't', fetch: noList.fetch }).suggest('trees', 'oak'),
    ).rejects.toBeInstanceOf(ApiError);
    // A list is data only in a 200; a body that is not JSON is an ApiError too, never a TypeError.
    for (const [status, body] of [
      [503, JSON.stringify({ error: true, message: 'busy', data: [] })],
      [200, 'not json'],
    ] as const) {
      const odd = recordingFetch(status, body);
      const client = createClient({ baseUrl: 'https://x.example', token: 't', fetch: odd.fetch, retry: 0 });
      const failure = await client.suggest('trees', 'oak').catch((caught: unknown) => caught);
      expect({ status, failure }).toEqual({ status, failure: expect.any(ApiError) });
    }
  });

  test('a base URL with a path keeps it', async () => {
    const { fetch, requests } = recordingFetch(200, found);
    await createClient({ baseUrl: 'https://example.org/game', token: 't', fetch }).vehicles();
    expect(requests[0]?.url).toBe('https://example.org/game/api/vehicles');
  });

  test('another status is an ApiError with the status, and the message of the body when there is one', async () => {
    const withBody = recordingFetch(405, JSON.stringify({ error: true, message: 'Method not allowed. Use GET.' }));
    const rejected = await createClient({ baseUrl: 'https://x.example', token: 't', fetch: withBody.fetch })
      .gifts()
      .catch((caught: unknown) => caught);
    expect(rejected).toBeInstanceOf(ApiError);
    expect(rejected).toMatchObject({ status: 405, message: 'Method not allowed. Use GET.' });
    const error = await createClient({
      baseUrl: 'https://x.example',
      token: 't',
      fetch: recordingFetch(503, 'busy').fetch,
      retry: 0,
    })
      .gifts()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, message: 'HTTP 503' });
  });

  test('only a 200 with a data array is data: another status, or a 200 without one, is an ApiError', async () => {
    const answer = (status: number, body: string) =>
      createClient({ baseUrl: 'https://x.example', token: 't', fetch: recordingFetch(status, body).fetch })
        .trees()
        .catch((caught: unknown) => caught);
    expect(await answer(503, JSON.stringify({ error: true, message: 'Busy.', data: [] }))).toMatchObject({
      name: 'ApiError',
      status: 503,
      message: 'Busy.',
    });
    expect(await answer(200, 'not json')).toMatchObject({ name: 'ApiError', status: 200 });
    expect(await answer(200, JSON.stringify({ error: false, message: 'No data.' }))).toMatchObject({
      name: 'ApiError',
      status: 200,
      message: 'No data.',
    });
  });

  test('not found and auth errors are API errors, all share the base class TreefarmError, told apart by class', () => {
    const errors = [new NotFoundError('n', 'trees', 'x'), new AuthError('a'), new ApiError('e', 500)];
    expect(errors.every((error) => error instanceof TreefarmError && error instanceof ApiError)).toBe(true);
    expect(errors.map((error) => [error.name, error.status])).toEqual([
      ['NotFoundError', 404],
      ['AuthError', 401],
      ['ApiError', 500],
    ]);
    expect(errors[1]).not.toBeInstanceOf(NotFoundError);
  });
});
