// The limit step of the edge core: which count a request falls under (its valid token's, or
// its client address's) and the 429 past it. The core counts nothing itself: the adapter
// hands it a count (rate-counter.ts locally, Cloudflare's binding in the Worker).
import { type CountedBy, rateLimitPolicy, rateLimitState, tooManyRequestsBody } from '../contract/rate-limit.ts';
import type { RateLimit } from '../schema/environment.ts';
import { addressKey } from './client-address.ts';
import { type AnswerCache, CURRENT_DATA, ERROR_HEADERS, type MadeBody, madeBody } from './answers.ts';
import type { AppHandOff, CountedResponse, EdgeRequest, EdgeResponse, HeaderRecord } from './decision.ts';
import { boundedMemo, type Memo } from './memo.ts';
import type { Verdict } from './token-verdict.ts';

/** What a runtime's count says of one request. */
export interface RateCount {
  allowed: boolean;
  /** Requests left in the window after this one, where the runtime knows it. */
  remaining?: number;
  /** Whole seconds until the window resets, where the runtime knows it. */
  resetSeconds?: number;
}

/** Which count a request falls under: its valid token's (by digest), or its client address's. */
export type { CountedBy };

/** A rate limit and the count that enforces it, supplied by the adapter. */
export interface EdgeRateLimit {
  limit: RateLimit;
  count(countedBy: CountedBy, key: string): RateCount | Promise<RateCount>;
}

/** The 429's bodies kept, by their Retry-After seconds. */
const TOO_MANY_BODIES = 64;

/** RateLimit-Policy, for every /api/ answer under a limit; no header without one. */
export const policyHeaders = (rateLimit: EdgeRateLimit | undefined): HeaderRecord =>
  rateLimit ? { 'RateLimit-Policy': rateLimitPolicy(rateLimit.limit) } : {};

export interface RateLimiter {
  /**
   * Counts the request: a valid token against its digest alone (`tokenCount` when the adapter
   * has counted it already, see remembered.ts), a missing or wrong one against the address.
   */
  count(request: EdgeRequest, verdict: Verdict, tokenCount: RateCount | undefined): RateCount | Promise<RateCount>;
  /**
   * The 429 to a request counted by `countedBy`: Retry-After and the body name the seconds until
   * the window resets (the window's length when unknown); the body says whose count ran out.
   */
  tooMany(request: EdgeRequest, count: RateCount, countedBy: CountedBy): Promise<CountedResponse>;
}

export function rateLimiter({ limit, count }: EdgeRateLimit, answers: AnswerCache): RateLimiter {
  const tooManyBodies: Record<CountedBy, Memo<number, MadeBody>> = {
    token: boundedMemo(TOO_MANY_BODIES),
    address: boundedMemo(TOO_MANY_BODIES),
  };
  return {
    count(request, verdict, tokenCount) {
      if (typeof verdict === 'object') return tokenCount ?? count('token', verdict.key);
      // By its key (an IPv6 address by its /64), so every runtime's count groups addresses alike.
      return count('address', addressKey(request.client ?? ''));
    },
    async tooMany(request, refused, countedBy) {
      const seconds = refused.resetSeconds ?? limit.seconds;
      const bodies = tooManyBodies[countedBy];
      let body = bodies.find(seconds);
      if (!body) {
        body = await madeBody(tooManyRequestsBody(limit, seconds, countedBy));
        bodies.set(seconds, body);
      }
      const headers = { 'Retry-After': String(seconds), ...ERROR_HEADERS };
      const answer = await answers.respond(429, body, request, headers, CURRENT_DATA);
      return countedAnswer(answer, { allowed: false, remaining: 0, resetSeconds: seconds });
    },
  };
}

/**
 * The shared answer with this request's RateLimit state, where the runtime knows it; with the
 * key a repeat of the request is counted under, when it has one (see CountedResponse).
 */
export function countedAnswer(
  answer: EdgeResponse | AppHandOff,
  count: RateCount | undefined,
  tokenKey?: string,
): CountedResponse {
  const { remaining, resetSeconds } = count ?? {};
  return {
    type: 'counted',
    answer,
    rateLimit:
      remaining === undefined || resetSeconds === undefined ? undefined : rateLimitState(remaining, resetSeconds),
    tokenKey,
  };
}
