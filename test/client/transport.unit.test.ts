// The online client's requests with a fetch double, no network: the options it refuses, the
// answer cache (what it keeps, least recently used first out), how long it waits before a
// retry (on fake timers), the caller's AbortSignal, and what a NetworkError says. Expected
// values are the documented defaults and rules (src/client/*.ts doc comments, README).
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { AnswerCache } from '../../src/client/cache.ts';
import { ApiError, createClient, NetworkError, NotFoundError, TimeoutError } from '../../src/client/index.ts';
import { createTransport } from '../../src/client/request.ts';
import { isRetryableStatus, rateLimitWait, retryDelay, retryPolicy } from '../../src/client/retry.ts';

const BASE = 'https://treefarm.example';
const OAK = { name: 'Oak Tree', level: 69 };
const envelope = (data?: object[]) =>
  JSON.stringify({ error: false, message: 'The requested tree data was successfully found.', data });

interface Scripted {
  status: number;
  body?: string;
  etag?: string;
}

/** A fetch that answers request n with answers[n] (past the end, the last), recording each request. */
function scriptedFetch(answers: readonly Scripted[]) {
  const requests: Request[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const answer = answers[Math.min(requests.length, answers.length - 1)] ?? { status: 500 };
    requests.push(request);
    const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
    if (answer.etag) headers['ETag'] = answer.etag;
    return new Response(answer.status === 304 ? null : (answer.body ?? null), { status: answer.status, headers });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

const settled = (promise: Promise<unknown>) => {
  const state: { outcome?: unknown; done: boolean } = { done: false };
  promise.then(
    (value: unknown) => Object.assign(state, { outcome: value, done: true }),
    (error: unknown) => Object.assign(state, { outcome: error, done: true }),
  );
  return state;
};

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('options', () => {
  test('a timeout that is not a number of milliseconds above 0 is refused, naming it; false turns it off', () => {
    for (const timeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => createClient({ baseUrl: BASE, token: 't', timeout })).toThrow(
        new RangeError(`timeout must be a number of milliseconds above 0, or false; got ${timeout}`),
      );
    for (const timeout of [false, 1] as const)
      expect(() => createClient({ baseUrl: BASE, token: 't', timeout })).not.toThrow();
  });

  test('a cache size that is not a whole number of at least 1 is refused, naming it', () => {
    for (const maxEntries of [0, -1, 1.5])
      expect(() => createClient({ baseUrl: BASE, token: 't', cache: { maxEntries } })).toThrow(
        new RangeError(`cache.maxEntries must be a whole number of at least 1, got ${maxEntries}`),
      );
    expect(() => new AnswerCache({ maxEntries: 1 })).not.toThrow();
  });

  test('the retry defaults: 2 retries, 300 ms first wait, 5000 ms at most; a number sets the retries', () => {
    expect(retryPolicy(undefined)).toEqual({ retries: 2, baseDelay: 300, maxDelay: 5000 });
    expect(retryPolicy(0)).toEqual({ retries: 0, baseDelay: 300, maxDelay: 5000 });
    expect(retryPolicy({ maxDelay: 100 })).toEqual({ retries: 2, baseDelay: 300, maxDelay: 100 });
  });

  test('timeout: false sets no timer: the answer comes, and no answer is still a NetworkError', async () => {
    const { fetch } = scriptedFetch([{ status: 200, body: envelope([OAK]) }]);
    expect(await createClient({ baseUrl: BASE, token: 't', fetch, timeout: false }).trees()).toEqual([OAK]);
    const refused: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const error = await createClient({ baseUrl: BASE, token: 't', fetch: refused, timeout: false, retry: 0 })
      .trees()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(TimeoutError);
  });
});

describe('a NetworkError says what happened', () => {
  const failing =
    (error: Error): typeof globalThis.fetch =>
    async () => {
      throw error;
    };
  const failureOf = (error: Error) =>
    createClient({ baseUrl: BASE, token: 't', fetch: failing(error), retry: 0 })
      .trees()
      .catch((caught: unknown) => caught as NetworkError);

  test("the address, then the cause's message when fetch's error has one", async () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    expect(await failureOf(refused)).toMatchObject({
      message: `No answer from ${BASE}/api/trees: connect ECONNREFUSED 127.0.0.1:9`,
      cause: refused,
    });
  });

  test('only the address when it has none', async () => {
    const bare = new TypeError('fetch failed');
    expect(await failureOf(bare)).toMatchObject({ message: `No answer from ${BASE}/api/trees`, cause: bare });
  });
});

describe("the caller's AbortSignal", () => {
  test('an abort during a request throws its reason, also with no retry left', async () => {
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      controller.abort(reason);
      throw init?.signal?.reason;
    };
    const client = createClient({ baseUrl: BASE, token: 't', fetch, retry: 0, timeout: false });
    expect(await client.trees(undefined, { signal: controller.signal }).catch((caught: unknown) => caught)).toBe(
      reason,
    );
  });

  test('aborted as a 5xx arrives: its reason, and no further request', async () => {
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const requests: Request[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      requests.push(new Request(input, init));
      if (init?.signal?.aborted) throw init.signal.reason;
      controller.abort(reason);
      return new Response('{}', { status: 503 });
    };
    const client = createClient({ baseUrl: BASE, token: 't', fetch, retry: { retries: 2, baseDelay: 1, maxDelay: 1 } });
    expect(await client.trees(undefined, { signal: controller.signal }).catch((caught: unknown) => caught)).toBe(
      reason,
    );
    expect(requests).toHaveLength(1);
  });

  test('an abort during the wait before a retry ends it at once: its reason, no timer or listener left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    const { fetch, requests } = scriptedFetch([{ status: 503, body: '{}' }]);
    const client = createClient({ baseUrl: BASE, token: 't', fetch, timeout: false });
    const call = settled(client.trees(undefined, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1);
    const reason = new Error('user gave up');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(call).toEqual({ done: true, outcome: reason });
    expect(requests).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('a call that waited and retried leaves no listener on the signal', async () => {
    const controller = new AbortController();
    const { fetch, requests } = scriptedFetch([
      { status: 503, body: '{}' },
      { status: 200, body: envelope([OAK]) },
    ]);
    const client = createClient({ baseUrl: BASE, token: 't', fetch, retry: { retries: 2, baseDelay: 1, maxDelay: 1 } });
    expect(await client.trees(undefined, { signal: controller.signal })).toEqual([OAK]);
    expect(requests).toHaveLength(2);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('backoff on the clock', () => {
  test('retry n waits baseDelay * 2^(n-1), less at most half of it by jitter, before asking again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.spyOn(Math, 'random').mockReturnValue(0); // the most jitter: half the wait
    const { fetch, requests } = scriptedFetch([{ status: 503, body: '{}' }]);
    const client = createClient({
      baseUrl: BASE,
      token: 't',
      fetch,
      timeout: false,
      retry: { retries: 2, baseDelay: 400, maxDelay: 5000 },
    });
    const call = settled(client.trees());
    const requestsAfter = async (milliseconds: number) => {
      await vi.advanceTimersByTimeAsync(milliseconds);
      return requests.length;
    };
    // First retry after 200 ms (400 halved), the second 400 ms after it (800 halved).
    expect([await requestsAfter(0), await requestsAfter(199), await requestsAfter(1)]).toEqual([1, 1, 2]);
    expect([await requestsAfter(399), await requestsAfter(1)]).toEqual([2, 3]);
    expect(call).toMatchObject({ done: true, outcome: { status: 503 } });
  });

  test('5xx is retried, nothing else', () => {
    const statuses = [200, 304, 404, 429, 499, 500, 503, 599, 600];
    expect(statuses.filter(isRetryableStatus)).toEqual([500, 503, 599]);
  });

  test('a 429 waits exactly its Retry-After when within maxDelay, never less (it would only meet another 429)', () => {
    const policy = retryPolicy({ retries: 1, baseDelay: 100, maxDelay: 10_000 });
    expect([0, 1, 10].map((seconds) => rateLimitWait(policy, 1, String(seconds), () => 0))).toEqual([0, 1000, 10_000]);
  });

  test('a 429 asking for longer than maxDelay is not waited for', () => {
    const policy = retryPolicy({ retries: 1, baseDelay: 100, maxDelay: 10_000 });
    expect(rateLimitWait(policy, 1, '11', () => 0)).toBeUndefined();
  });

  test('a 429 without a Retry-After in whole seconds waits the backoff', () => {
    const policy = retryPolicy({ retries: 3, baseDelay: 100, maxDelay: 10_000 });
    for (const retryAfter of [null, 'Wed, 21 Oct 2026 07:28:00 GMT', '1.5'])
      expect({ retryAfter, wait: rateLimitWait(policy, 2, retryAfter, () => 0) }).toEqual({ retryAfter, wait: 100 });
  });

  test('a Retry-After that is not whole seconds (a date, a fraction, a sign) is ignored; spaces around are not', () => {
    const policy = retryPolicy({ retries: 1, baseDelay: 100, maxDelay: 10_000 });
    const wait = (retryAfter: string) => retryDelay(policy, 1, retryAfter, () => 0);
    for (const ignored of ['Wed, 21 Oct 2026 07:28:00 GMT', '1.5', '-3', 'x5', '5x'])
      expect({ ignored, wait: wait(ignored) }).toEqual({ ignored, wait: 50 });
    expect(wait(' 2 ')).toBe(2000);
  });
});

describe('the answer cache', () => {
  const entry = (etag: string) => ({ etag, body: etag });

  test('least recently used out first: reading an answer, or storing it again, makes it the most recent', () => {
    const cache = new AnswerCache({ maxEntries: 2 });
    cache.set('a', entry('a1'));
    cache.set('b', entry('b1'));
    cache.get('a');
    cache.set('c', entry('c1')); // b out
    expect(['a', 'b', 'c'].map((url) => cache.get(url)?.etag)).toEqual(['a1', undefined, 'c1']);
    cache.set('a', entry('a2'));
    cache.set('d', entry('d1')); // c out: a was stored again after it
    expect(['a', 'c', 'd'].map((url) => cache.get(url)?.etag)).toEqual(['a2', undefined, 'd1']);
  });

  test('asking for an answer it does not hold takes no place', () => {
    const cache = new AnswerCache({ maxEntries: 2 });
    cache.set('a', entry('a1'));
    expect(cache.get('x')).toBeUndefined();
    cache.set('b', entry('b1'));
    expect(['a', 'b'].map((url) => cache.get(url)?.etag)).toEqual(['a1', 'b1']);
  });

  test('a 304 reuses the cached body, reads as 200 and says so; a 200 is fresh', async () => {
    const { fetch, requests } = scriptedFetch([{ status: 200, body: envelope([OAK]), etag: '"v1"' }, { status: 304 }]);
    const transport = createTransport({ baseUrl: BASE, token: 't', fetch });
    const first = await transport('trees');
    const second = await transport('trees');
    const third = await transport('trees');
    expect([first, second, third].map(({ status, fromCache, body }) => ({ status, fromCache, body }))).toEqual([
      { status: 200, fromCache: false, body: JSON.parse(envelope([OAK])) },
      { status: 200, fromCache: true, body: JSON.parse(envelope([OAK])) },
      { status: 200, fromCache: true, body: JSON.parse(envelope([OAK])) },
    ]);
    expect(requests.map((request) => request.headers.get('If-None-Match'))).toEqual([null, '"v1"', '"v1"']);
  });

  test('only a 200 with an ETag and a JSON body is kept', async () => {
    const notKept: [what: string, answer: Scripted][] = [
      ['a 404 with an ETag', { status: 404, body: JSON.stringify({ error: true, message: 'No.' }), etag: '"n"' }],
      ['a 404 without one', { status: 404, body: JSON.stringify({ error: true, message: 'No.' }) }],
      ['a 200 without an ETag', { status: 200, body: envelope([OAK]) }],
      ['a 200 that is not JSON', { status: 200, body: 'not json', etag: '"t"' }],
    ];
    for (const [what, answer] of notKept) {
      const { fetch, requests } = scriptedFetch([answer]);
      const transport = createTransport({ baseUrl: BASE, token: 't', fetch });
      await transport('trees');
      await transport('trees');
      expect({ what, sent: requests.map((request) => request.headers.get('If-None-Match')) }).toEqual({
        what,
        sent: [null, null],
      });
    }
  });

  test('an answer not kept does not push out one that is', async () => {
    const { fetch, requests } = scriptedFetch([
      { status: 200, body: envelope([OAK]), etag: '"a"' },
      { status: 404, body: JSON.stringify({ error: true, message: 'No.' }) },
      { status: 200, body: envelope([OAK]), etag: '"b"' },
      { status: 304 },
    ]);
    const transport = createTransport({ baseUrl: BASE, token: 't', fetch, cache: { maxEntries: 2 } });
    for (const search of ['a', 'missing', 'b', 'a']) await transport('trees', { search });
    expect(requests.map((request) => request.headers.get('If-None-Match'))).toEqual([null, null, null, '"a"']);
  });
});

describe('the list of releases online', () => {
  const releasesOf = (answer: Scripted) => {
    const { fetch, requests } = scriptedFetch([answer]);
    const client = createClient({ baseUrl: BASE, token: 't', fetch, retry: 0 });
    return { requests, outcome: client.releases().catch((caught: unknown) => caught) };
  };

  test('GET /api/releases: its data', async () => {
    const release = { id: '2026-12-01', version: 'v' };
    const { requests, outcome } = releasesOf({
      status: 200,
      body: JSON.stringify({ error: false, message: 'm', data: [release] }),
    });
    expect(await outcome).toEqual([release]);
    expect(requests.map((request) => request.url)).toEqual([`${BASE}/api/releases`]);
  });

  test('another status, or a 200 without a data array, is an ApiError; a 404 without a kind too', async () => {
    const notFound = await releasesOf({ status: 404, body: JSON.stringify({ error: true, message: 'Gone.' }) }).outcome;
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).not.toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ status: 404, message: 'Gone.' });
    const withData = await releasesOf({
      status: 500,
      body: JSON.stringify({ error: true, message: 'Down.', data: [] }),
    }).outcome;
    expect(withData).toMatchObject({ name: 'ApiError', status: 500, message: 'Down.' });
    expect(await releasesOf({ status: 200, body: '[]' }).outcome).toMatchObject({ name: 'ApiError', status: 200 });
  });
});

describe('what the online client takes for data', () => {
  test('a 200 whose body has data but no message is no API envelope: an ApiError', async () => {
    const { fetch } = scriptedFetch([{ status: 200, body: JSON.stringify({ data: [OAK] }) }]);
    const error = await createClient({ baseUrl: BASE, token: 't', fetch })
      .trees()
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ApiError', status: 200, message: 'HTTP 200' });
  });
});
