// How the online client behaves on the network: the answer cache (ETag, If-None-Match, 304),
// the timeout, retries with backoff after no answer or a 5xx, or after a 429's Retry-After
// (never after another 4xx), and the
// errors that say what happened. Against the local server, and a server that fails on purpose.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  ApiError,
  AuthError,
  createClient,
  NetworkError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  type ClientOptions,
} from '../../src/client/index.ts';
import { retryDelay, retryPolicy } from '../../src/client/retry.ts';
import { startRuntime, type Runtime } from '../support/runtimes.ts';
import { jsonAnswer, scriptedServer, type ScriptedServer, type Step } from '../support/scripted-server.ts';

const TOKEN = 'network-test-token';
const OAK = { name: 'Oak Tree', level: 69 };
const found = (data: object[], etag = '"v1"') =>
  jsonAnswer(200, { error: false, message: 'The requested tree data was successfully found.', data }, { ETag: etag });
/** Retries without waiting long, so the tests stay quick. */
const FAST_RETRY = { retries: 2, baseDelay: 10, maxDelay: 50 };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function clientOf(script: Step[], options: Partial<ClientOptions> = {}) {
  server = await scriptedServer(script);
  return createClient({ baseUrl: server.url, token: TOKEN, retry: FAST_RETRY, ...options });
}
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('the answer cache', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime('node', { tokens: [TOKEN] });
  });
  afterAll(() => runtime?.close());

  test('a repeated query sends If-None-Match and reuses the body on the local server’s 304', async () => {
    const seen: { ifNoneMatch: string | null; status: number }[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      seen.push({ ifNoneMatch: request.headers.get('If-None-Match'), status: response.status });
      return response;
    };
    const client = createClient({ baseUrl: runtime.url, token: TOKEN, fetch: recordingFetch });
    const first = await client.trees('oak tree');
    const second = await client.trees('oak tree');
    expect(second).toEqual(first);
    expect(first[0]?.name).toBe('Oak Tree');
    expect(seen[0]).toEqual({ ifNoneMatch: null, status: 200 });
    expect(seen[1]?.status).toBe(304);
    expect(seen[1]?.ifNoneMatch).toMatch(/^(W\/)?"/);
  });

  test('cache: false sends no If-None-Match', async () => {
    const client = await clientOf([found([OAK])], { cache: false });
    await client.trees('oak');
    await client.trees('oak');
    expect(server?.requests.map((request) => request.headers['if-none-match'])).toEqual([undefined, undefined]);
  });

  test('the cache keeps at most maxEntries answers, dropping the least recently used', async () => {
    const client = await clientOf([found([OAK])], { cache: { maxEntries: 1 } });
    await client.trees('a');
    await client.trees('b'); // drops a
    await client.trees('b');
    await client.trees('a');
    expect(server?.requests.map((request) => request.headers['if-none-match'])).toEqual([
      undefined,
      undefined,
      '"v1"',
      undefined,
    ]);
  });

  test('a new ETag replaces the cached body', async () => {
    const client = await clientOf([found([OAK], '"v1"'), found([{ ...OAK, level: 70 }], '"v2"'), { status: 304 }]);
    await client.trees();
    expect(await client.trees()).toEqual([{ ...OAK, level: 70 }]);
    expect(await client.trees()).toEqual([{ ...OAK, level: 70 }]);
    expect(server?.requests.map((request) => request.headers['if-none-match'])).toEqual([undefined, '"v1"', '"v2"']);
  });
});

describe('the timeout', () => {
  test('no answer within the timeout is a TimeoutError, a NetworkError with the abort as cause', async () => {
    const client = await clientOf(['hang'], { timeout: 200, retry: 0 });
    const error = await failureOf(client.trees());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timeout: 200, message: expect.stringContaining('within 200 ms') });
    expect((error as TimeoutError).cause).toBeInstanceOf(Error);
    expect((error as TimeoutError).request.url).toBe(`${server?.url}/api/trees`);
  });

  test('a timed-out attempt is tried again', async () => {
    const client = await clientOf(['hang', found([OAK])], { timeout: 200 });
    expect(await client.trees('oak')).toEqual([OAK]);
    expect(server?.requests).toHaveLength(2);
  });

  test('the caller’s AbortSignal aborts at once, with its own reason and no retry', async () => {
    const client = await clientOf(['hang']);
    const controller = new AbortController();
    const pending = failureOf(client.trees(undefined, { signal: controller.signal }));
    // Aborted once the request is on the server, whatever the machine's speed.
    await server?.received(1);
    controller.abort(new Error('user gave up'));
    expect(await pending).toEqual(new Error('user gave up'));
    expect(server?.requests).toHaveLength(1);
  });
});

describe('retries', () => {
  test('a 503 then a 200: the data, after two requests', async () => {
    const client = await clientOf([jsonAnswer(503, { error: true, message: 'Busy.' }), found([OAK])]);
    expect(await client.trees('oak')).toEqual([OAK]);
    expect(server?.requests).toHaveLength(2);
  });

  test('a 5xx on every attempt: an ApiError with the status and message, after 1 + retries requests', async () => {
    const client = await clientOf([jsonAnswer(502, { error: true, message: 'Bad gateway.' })]);
    const error = await failureOf(client.trees());
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, message: 'Bad gateway.' });
    expect(server?.requests).toHaveLength(3);
  });

  test.each([
    [400, ApiError],
    [401, AuthError],
    [404, NotFoundError],
  ])('a %i is never retried', async (status, errorClass) => {
    const client = await clientOf([jsonAnswer(status, { error: true, message: `Status ${status}.` })]);
    const error = await failureOf(client.trees('x'));
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status, message: `Status ${status}.` });
    expect(server?.requests).toHaveLength(1);
  });

  const rateLimited = (retryAfter?: string) =>
    jsonAnswer(
      429,
      { error: true, message: 'Too many requests with this API token.' },
      retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
    );

  test('a 429 whose Retry-After is within maxDelay is tried again once it has passed: the data', async () => {
    const client = await clientOf([rateLimited('0'), found([OAK])]);
    expect(await client.trees('oak')).toEqual([OAK]);
    expect(server?.requests).toHaveLength(2);
  });

  test('a 429 without Retry-After is tried again after the backoff', async () => {
    const client = await clientOf([rateLimited(), found([OAK])]);
    expect(await client.trees('oak')).toEqual([OAK]);
    expect(server?.requests).toHaveLength(2);
  });

  test('a 429 asking for a longer wait than maxDelay: a RateLimitError at once, with the wait asked', async () => {
    const client = await clientOf([rateLimited('60'), found([OAK])]);
    const error = await failureOf(client.trees('oak'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, retryAfter: 60, message: 'Too many requests with this API token.' });
    expect(server?.requests).toHaveLength(1);
  });

  test('a 429 on every attempt: a RateLimitError after 1 + retries requests', async () => {
    const client = await clientOf([rateLimited('0')]);
    const error = await failureOf(client.trees('oak'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfter: 0 });
    expect(server?.requests).toHaveLength(3);
  });

  test('a dropped connection then a 200: the data, after two requests', async () => {
    const client = await clientOf(['drop', found([OAK])]);
    expect(await client.trees('oak')).toEqual([OAK]);
    expect(server?.requests).toHaveLength(2);
  });

  test('dropped every time: a NetworkError with fetch’s error as cause, after 1 + retries requests', async () => {
    const client = await clientOf(['drop']);
    const error = await failureOf(client.trees());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as NetworkError).cause).toBeInstanceOf(TypeError);
    expect(server?.requests).toHaveLength(3);
  });

  test('nothing listening: a NetworkError naming the address', async () => {
    const closed = await scriptedServer([]);
    await closed.close();
    const error = await failureOf(createClient({ baseUrl: closed.url, token: TOKEN, retry: 0 }).trees());
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain(`${closed.url}/api/trees`);
  });

  test('retry: 0 makes one request only', async () => {
    const client = await clientOf([jsonAnswer(503, { error: true, message: 'Busy.' })], { retry: 0 });
    await failureOf(client.trees());
    expect(server?.requests).toHaveLength(1);
  });
});

describe('backoff', () => {
  const policy = retryPolicy({ retries: 5, baseDelay: 100, maxDelay: 1000 });
  const lowest = () => 0;
  const highest = () => 0.999999;

  test('the wait doubles with each retry, between half and all of baseDelay * 2^(n-1)', () => {
    expect([1, 2, 3].map((attempt) => retryDelay(policy, attempt, null, lowest))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((attempt) => Math.round(retryDelay(policy, attempt, null, highest)))).toEqual([100, 200, 400]);
  });

  test('no wait exceeds maxDelay', () => {
    expect(retryDelay(policy, 10, null, highest)).toBeLessThanOrEqual(1000);
    expect(retryDelay(policy, 10, null, lowest)).toBe(500);
  });

  test('a Retry-After in seconds is honoured when longer, up to maxDelay', () => {
    expect(retryDelay(policy, 1, '0', lowest)).toBe(50);
    expect(retryDelay(policy, 1, '1', lowest)).toBe(1000);
    expect(retryDelay(policy, 1, '60', lowest)).toBe(1000);
  });

  test('a retry option that is not a whole number is refused, naming it', () => {
    expect(() => retryPolicy({ retries: -1 })).toThrow('retry.retries must be a whole number of at least 0, got -1');
  });
});

describe('errors', () => {
  test('an ApiError carries the request and the response, its body still readable', async () => {
    const client = await clientOf([jsonAnswer(400, { error: true, message: 'Bad search.' }, { 'X-Why': 'test' })]);
    const error = (await failureOf(client.trees('x'))) as ApiError;
    expect(error.request?.url).toBe(`${server?.url}/api/trees?search=x`);
    expect(error.response?.headers.get('X-Why')).toBe('test');
    expect(await error.response?.json()).toEqual({ error: true, message: 'Bad search.' });
  });

  test('an error answer that is not JSON is an ApiError with the status line', async () => {
    const client = await clientOf([{ status: 418, body: 'teapot' }]);
    expect(await failureOf(client.trees())).toMatchObject({ status: 418, message: "HTTP 418 I'm a Teapot" });
  });
});
