// Remembered decisions, for adapters on a hot path: the core is a pure function of the request
// and the build, so the same method, target and headers always get the same decision. The
// wrapper keeps the decisions of recent requests in a bounded memo, keyed by everything the
// core reads, and gives them back without a turn of the event loop (`known`); anything else
// goes to the core (`decide`). A new core (a reload) gets a new wrapper. Answers counted under
// a rate limit are never remembered: each request must be counted, and its RateLimit differs.
import type { EdgeDecision, EdgeRequest } from './core.ts';
import { boundedMemo } from './memo.ts';

/** The headers the core reads: a decision is remembered for exactly these values. */
const READ_HEADERS = ['authorization', 'accept-encoding', 'if-none-match'] as const;
/** Requests with longer keys are decided every time rather than remembered. */
const MAX_KEY_LENGTH = 512;
const LIMIT = 4096;

export interface RememberedEdge {
  /** The decision for a request seen before, or undefined. */
  known(request: EdgeRequest): EdgeDecision | undefined;
  /** The core's decision, remembered for next time. */
  decide(request: EdgeRequest): Promise<EdgeDecision>;
}

/** Everything the core reads of a request, as one string; undefined when too long to keep. */
function keyOf(request: EdgeRequest): string | undefined {
  let key = `${request.method} ${request.pathname}?${request.query}`;
  for (const name of READ_HEADERS) key += `\n${request.header(name) ?? '\0'}`;
  return key.length > MAX_KEY_LENGTH ? undefined : key;
}

export function rememberDecisions(decide: (request: EdgeRequest) => Promise<EdgeDecision>): RememberedEdge {
  const decisions = boundedMemo<string, EdgeDecision>(LIMIT);
  return {
    known(request) {
      const key = keyOf(request);
      return key === undefined ? undefined : decisions.find(key);
    },
    async decide(request) {
      const key = keyOf(request);
      const decision = await decide(request);
      if (key !== undefined && decision.type !== 'counted') decisions.set(key, decision);
      return decision;
    },
  };
}
