// The API's rate limit, as the contract states it: how an operator sets it
// (API_RATE_LIMIT=<requests>/<seconds>s), the fields every limited answer carries, and the
// 429's body. Written once for both runtimes, OpenAPI and the docs.

/** The windows Cloudflare's rate limiting binding supports, so both runtimes take the same settings. */
export const RATE_LIMIT_WINDOWS = [10, 60] as const;
export type RateLimitWindow = (typeof RATE_LIMIT_WINDOWS)[number];

export interface RateLimit {
  /** Requests a token (or, without a valid one, a client address) may make per window. */
  requests: number;
  /** The window's length in seconds. */
  seconds: RateLimitWindow;
}

/** The variable that configures the limit, in both runtimes. */
export const RATE_LIMIT_VARIABLE = 'API_RATE_LIMIT';

const RATE_LIMIT_FORM = /^([1-9]\d{0,8})\/(\d+)s$/;

/** What is wrong with a value that is not a limit (after the variable's name). */
export const RATE_LIMIT_FORM_PROBLEM =
  'must be <requests>/<seconds>s, requests a whole number from 1 to 999999999 ' +
  `and seconds ${RATE_LIMIT_WINDOWS.join(' or ')} (such as 100/60s)`;

/**
 * The limit an API_RATE_LIMIT value states: "100/60s" is 100 requests per 60 seconds; unset
 * or empty is no limit. Anything else is a RangeError naming the variable and the value.
 */
export function parseRateLimit(value: string | undefined): RateLimit | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  const match = RATE_LIMIT_FORM.exec(text);
  const seconds = RATE_LIMIT_WINDOWS.find((window) => String(window) === match?.[2]);
  if (!match || seconds === undefined)
    throw new RangeError(`${RATE_LIMIT_VARIABLE} ${RATE_LIMIT_FORM_PROBLEM}, got "${value}"`);
  return { requests: Number(match[1]), seconds };
}

/** RateLimit-Policy, on every /api/ answer under a limit: the quota and its window. */
export const rateLimitPolicy = ({ requests, seconds }: RateLimit): string => `"token";q=${requests};w=${seconds}`;

/** RateLimit: what is left of the quota, and the seconds until the window resets. */
export const rateLimitState = (remaining: number, resetSeconds: number): string =>
  `"token";r=${wholeNumberText(remaining)};t=${resetSeconds}`;

/** "000" to "999": the digits of a whole number, three at a time. */
const DIGIT_GROUPS = Array.from({ length: 1000 }, (_, group) => String(group).padStart(3, '0'));

/**
 * A whole number's decimal digits, as `${whole}` writes them, put together from groups of
 * three. Not `${whole}` itself: V8 keeps the text of each number it writes in a cache, and
 * under a high limit `remaining` is a new number on every request, so every request's text
 * outlived the young generation and was promoted: the serving process's young generation grew
 * fourfold and its RSS under load by up to 100 MiB (BENCHMARKS.md, "the number cache").
 */
export function wholeNumberText(whole: number): string {
  let rest = whole;
  let digits = '';
  while (rest >= 1000) {
    digits = `${DIGIT_GROUPS[rest % 1000]}${digits}`;
    rest = Math.floor(rest / 1000);
  }
  // Below 1000: at most a thousand texts, which the cache keeps once and for all.
  return `${rest}${digits}`;
}

/** The body of a 429. */
export function tooManyRequestsBody({ requests, seconds }: RateLimit, retryAfter: number): string {
  return JSON.stringify({
    error: true,
    message:
      `Too many requests with this API token: the limit is ${requests} per ${seconds} seconds. ` +
      `Try again in ${retryAfter} seconds.`,
  });
}
