// When and how long to wait before trying a request again: after no answer at all or a 5xx,
// never after a 4xx (the same request would get the same answer). Exponential backoff with
// jitter, so many clients failing together do not come back together, capped by maxDelay.

export interface RetryOptions {
  /** Further attempts after the first; 0 turns retrying off. Default 2. */
  retries?: number;
  /** The wait before the first retry, in milliseconds; it doubles each time. Default 300. */
  baseDelay?: number;
  /** No wait is longer than this, in milliseconds (Retry-After included). Default 5000. */
  maxDelay?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelay: 300, maxDelay: 5_000 };

export function retryPolicy(options: RetryOptions | number | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...(typeof options === 'number' ? { retries: options } : options) };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`retry.${name} must be a whole number of at least 0, got ${value}`);
  }
  return policy;
}

export const isRetryableStatus = (status: number): boolean => status >= 500 && status <= 599;

/** 429 Too Many Requests: the token's rate limit (see rateLimitWait). */
export const RATE_LIMITED = 429;

/** Whole seconds of a Retry-After header; undefined when absent or not whole seconds (a date, a fraction). */
export function retryAfterSeconds(retryAfter: string | null): number | undefined {
  const value = retryAfter?.trim() ?? '';
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The wait before retrying a 429, in milliseconds: the API's Retry-After (asking sooner would
 * only spend the next window's budget on another 429), or the backoff when it gave none;
 * undefined when it asks for longer than maxDelay, so the caller gives up at once.
 */
export function rateLimitWait(
  policy: RetryPolicy,
  attempt: number,
  retryAfter: string | null,
  random: () => number = Math.random,
): number | undefined {
  const seconds = retryAfterSeconds(retryAfter);
  if (seconds === undefined) return retryDelay(policy, attempt, null, random);
  return seconds * 1000 <= policy.maxDelay ? seconds * 1000 : undefined;
}

/**
 * The wait before retry number `attempt` (1 for the first): baseDelay * 2^(attempt-1), of
 * which a random half is taken off ("equal jitter"), never above maxDelay. A Retry-After
 * in seconds from the server is honoured when it asks for longer, up to maxDelay.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfter: string | null = null,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelay, policy.baseDelay * 2 ** (attempt - 1));
  const jittered = exponential / 2 + (random() * exponential) / 2;
  const asked = (retryAfterSeconds(retryAfter) ?? 0) * 1000;
  return Math.min(policy.maxDelay, Math.max(jittered, asked));
}
