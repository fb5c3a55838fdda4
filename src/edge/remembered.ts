// Remembered decisions, for adapters on a hot path: the core is a pure function of the request
// and the build, so the same method, target and headers always get the same decision. The
// wrapper keeps the decisions of recent requests in a bounded memo, keyed by everything the
// core reads, and gives them back without a turn of the event loop; anything else goes to the
// core. A new core (a reload) gets a new wrapper.
//
// Under a rate limit every request must be counted. An answer to a token the core has verified
// is remembered with the key its repeats are counted under (CountedResponse.tokenKey); when the
// adapter's count answers at once (a count held in this process), a repeat is counted here and
// gets the remembered answer with its own RateLimit state. A repeat the count refuses goes to
// the core with that count, which makes the 429 without counting it again. With a count that
// answers later (another process's), counted answers are not remembered: the core counts each.
import type { EdgeDecision, EdgeRequest } from './decision.ts';
import { countedAnswer, type RateCount } from './rate-limit.ts';
import { boundedMemo } from './memo.ts';

/** The headers the core reads: a decision is remembered for exactly these values. */
const READ_HEADERS = ['authorization', 'accept-encoding', 'if-none-match'] as const;
/** Requests with longer keys are decided every time rather than remembered. */
const MAX_KEY_LENGTH = 512;
const LIMIT = 4096;

export interface RememberedEdge {
  /** The decision: at once for a request seen before, else the core's (remembered for next time). */
  decide(request: EdgeRequest): EdgeDecision | Promise<EdgeDecision>;
}

/** Counts one request under a token's key now (the adapter's own count of the core's rate limit). */
export type CountNow = (countedBy: 'token', key: string) => RateCount;

/** Everything the core reads of a request, as one string; undefined when too long to keep. */
function keyOf(request: EdgeRequest): string | undefined {
  let key = `${request.method} ${request.pathname}?${request.query}`;
  for (const name of READ_HEADERS) key += `\n${request.header(name) ?? '\0'}`;
  return key.length > MAX_KEY_LENGTH ? undefined : key;
}

/**
 * Remembers `core`'s decisions. `countNow`, when given, must be the very count the core's rate
 * limit counts with, answering at once: counted answers are then remembered too.
 */
export function rememberDecisions(
  core: (request: EdgeRequest, tokenCount?: RateCount) => Promise<EdgeDecision>,
  countNow?: CountNow,
): RememberedEdge {
  const decisions = boundedMemo<string, EdgeDecision>(LIMIT);
  const decideAndRemember = async (request: EdgeRequest, key: string | undefined) => {
    const decision = await core(request);
    const remembered = decision.type !== 'counted' || (countNow !== undefined && decision.tokenKey !== undefined);
    if (key !== undefined && remembered) decisions.set(key, decision);
    return decision;
  };
  return {
    decide(request) {
      const key = keyOf(request);
      const known = key === undefined ? undefined : decisions.find(key);
      if (!known) return decideAndRemember(request, key);
      if (known.type !== 'counted' || known.tokenKey === undefined || !countNow) return known;
      const count = countNow('token', known.tokenKey);
      return count.allowed ? countedAnswer(known.answer, count, known.tokenKey) : core(request, count);
    },
  };
}
