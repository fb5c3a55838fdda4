// The API's rate limit, as the contract states it: the fields every limited answer carries, and
// the 429's body. Written once for both runtimes, OpenAPI and the docs. How an operator sets it
// (API_RATE_LIMIT=<requests>/<seconds>s) is a setting: src/schema/environment.ts.
import type { RateLimit } from '../schema/environment.ts';

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
 * fourfold and its RSS under load by up to 100 MiB (BENCHMARKS.md, "Findings the code relies on").
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

/** What a request is counted by: its valid token, or (a missing or wrong token) its client's address. */
export type CountedBy = 'token' | 'address';

/** Whose requests the 429 says were too many, by what they were counted by. */
export const TOO_MANY_FROM: Readonly<Record<CountedBy, string>> = {
  token: 'with this API token',
  address: 'from this address',
};

/** The body of a 429 to a request counted by `countedBy`. */
export function tooManyRequestsBody(
  { requests, seconds }: RateLimit,
  retryAfter: number,
  countedBy: CountedBy,
): string {
  return JSON.stringify({
    error: true,
    message:
      `Too many requests ${TOO_MANY_FROM[countedBy]}: the limit is ${requests} per ${seconds} seconds. ` +
      `Try again in ${retryAfter} seconds.`,
  });
}
