// The one way the online client talks to the API: GET with the token, the answer cache
// (If-None-Match, body reused on 304), a timeout per attempt, and retries with backoff
// after no answer or a 5xx, or once a 429's Retry-After has passed. Answers with any status
// come back; only no answer throws.
import { AnswerCache, type CacheOptions } from './cache.ts';
import { NetworkError, TimeoutError } from './errors.ts';
import {
  isRetryableStatus,
  RATE_LIMITED,
  rateLimitWait,
  retryDelay,
  retryPolicy,
  type RetryOptions,
  type RetryPolicy,
} from './retry.ts';

export interface TransportOptions {
  /** The site's address; the API lives below it at api/ ("https://treefarm.example"). */
  baseUrl: string | URL;
  token: string;
  /** Another fetch (a test double, a proxy-aware one); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** Milliseconds one attempt may take, body included; false for none. Default 10000. */
  timeout?: number | false;
  /**
   * Retries after no answer, a 5xx, or a 429 whose Retry-After is within maxDelay: a count,
   * or the policy. Default 2 retries.
   */
  retry?: RetryOptions | number;
  /** The in-memory answer cache (ETag, If-None-Match); false turns it off. On by default. */
  cache?: CacheOptions | false;
}

export interface CallOptions {
  /** Aborts the request, retries and waits included; the abort reason is thrown as it is. */
  signal?: AbortSignal;
}

export type Query = Record<string, string | null | undefined>;

export interface Answer {
  /** The status of the answer; a 304 that reused a cached body reads as 200. */
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  request: Request;
  response: Response;
  /** True when the body came from the cache after a 304. */
  fromCache: boolean;
}

export type Transport = (path: string, query?: Query, options?: CallOptions) => Promise<Answer>;

export const DEFAULT_TIMEOUT = 10_000;

export function createTransport(options: TransportOptions): Transport {
  const { token, fetch = globalThis.fetch, timeout = DEFAULT_TIMEOUT } = options;
  if (timeout !== false && (!Number.isFinite(timeout) || timeout <= 0))
    throw new RangeError(`timeout must be a number of milliseconds above 0, or false; got ${timeout}`);
  const policy = retryPolicy(options.retry);
  const cache = options.cache === false ? undefined : new AnswerCache(options.cache);
  // A trailing slash, so a site below a path keeps it ("https://host/game/" + "api/trees").
  const base = new URL(options.baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';

  return async (path, query = {}, { signal } = {}) => {
    const url = urlOf(base, path, query);
    const cached = cache?.get(url);
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (cached) headers['If-None-Match'] = cached.etag;
    for (let attempt = 0; ; attempt++) {
      const request = new Request(url, { headers });
      const outcome = await attemptOnce(fetch, request, timeout, signal);
      const wait = attempt < policy.retries ? waitBeforeRetry(policy, attempt + 1, outcome) : undefined;
      if (wait !== undefined) {
        await sleep(wait, signal);
        continue;
      }
      if (outcome instanceof NetworkError) throw outcome;
      const { response, text } = outcome;
      if (response.status === 304 && cached)
        return { status: 200, body: cached.body, request, response, fromCache: true };
      const body = parseJson(text);
      const etag = response.headers.get('ETag');
      if (response.status === 200 && etag && body !== undefined) cache?.set(url, { etag, body });
      return { status: response.status, body, request, response, fromCache: false };
    }
  };
}

/** How long to wait before trying again after this outcome; undefined when not to try again. */
function waitBeforeRetry(policy: RetryPolicy, attempt: number, outcome: Attempt | NetworkError): number | undefined {
  if (outcome instanceof NetworkError) return retryDelay(policy, attempt);
  const { status, headers } = outcome.response;
  if (status === RATE_LIMITED) return rateLimitWait(policy, attempt, headers.get('Retry-After'));
  return isRetryableStatus(status) ? retryDelay(policy, attempt, headers.get('Retry-After')) : undefined;
}

function urlOf(base: URL, path: string, query: Query): string {
  const url = new URL(`api/${path}`, base);
  const present = Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  // No parameter gives an empty search, which leaves no "?".
  url.search = new URLSearchParams(present).toString();
  return url.href;
}

/** An attempt that got an answer: the response, its body read. */
interface Attempt {
  response: Response;
  text: string;
}

/** One attempt: the response with its body read, or the NetworkError for no answer. */
async function attemptOnce(
  fetch: typeof globalThis.fetch,
  request: Request,
  timeout: number | false,
  signal: AbortSignal | undefined,
): Promise<Attempt | NetworkError> {
  // The timer and the timeout it was set for: none with timeout false.
  const timer = timeout === false ? undefined : { timeout, signal: AbortSignal.timeout(timeout) };
  const signals = [signal, timer?.signal].filter((each) => each !== undefined);
  try {
    // A signal of no signals never aborts, as none does.
    const response = await fetch(request, { signal: AbortSignal.any(signals) });
    // An error keeps its body readable for the caller (ApiError.response), as fetch gave it.
    const text = await (response.ok ? response : response.clone()).text();
    return { response, text };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timer?.signal.aborted) return new TimeoutError(request, timer.timeout, { cause: error });
    const reason = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return new NetworkError(`No answer from ${request.url}${reason}`, request, { cause: error });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
