// The edge core: a function from a request (method, URL, headers) to a decision, the same in
// every runtime, written with Web-standard APIs only. Adapters (src/server, src/worker/worker.ts)
// only fetch the chosen body in the chosen encoding and send it. A request takes these steps,
// each decided in a module of its own:
//   method and path  route.ts         which part of the service the request is for
//   static           static-guard.ts  no spelling of a site path reaches the API's files
//   health           health.ts        GET /healthz
//   token            token-verdict.ts whether the Authorization header carries a configured token
//   limit            rate-limit.ts    which count the request falls under, and the 429 past it
//   resolve          api-answer.ts    what answers the endpoint, query and release
//   (an app of the seam, apps.ts, which the adapter found at the path and names in the request,
//   is handed back to it: a guarded one after the limit, another, whose credential is its own,
//   before the token)
//   answer           answers.ts       each answer made once, frozen and shared
// The work a request repeats (negotiation, resolving a query, a token already verified) is
// remembered in bounded memos, so the common request allocates almost nothing.
import { CHALLENGE_HEADERS, STATIC_METHODS } from '../contract/headers.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { apiAnswers } from './api-answer.ts';
import { AnswerCache, ERROR_HEADERS, OUTSIDE_API } from './answers.ts';
import {
  type AppHandOff,
  type EdgeDecision,
  type EdgeRequest,
  type EdgeResponse,
  type HeaderRecord,
  STATIC,
} from './decision.ts';
import { healthCheck } from './health.ts';
import { countedAnswer, type EdgeRateLimit, policyHeaders, type RateCount, rateLimiter } from './rate-limit.ts';
import { routeOf } from './route.ts';
import { tokenVerdicts, type Verdict } from './token-verdict.ts';
import type { Digest } from './tokens.ts';

export type { AppHandOff, BodySource, CountedResponse, EdgeDecision, EdgeRequest, EdgeResponse } from './decision.ts';
export type { EdgeRateLimit, RateCount, CountedBy } from './rate-limit.ts';

export interface EdgeOptions {
  /** The build, as this runtime reads it. */
  index: RouteIndex;
  tokenDigests: readonly Digest[];
  /** The name of each token, in the order of tokenDigests (the access log's; by default its digest's first 8 hex). */
  tokenNames?: readonly string[];
  /** Off when absent. */
  rateLimit?: EdgeRateLimit;
  /** The optional features a malformed setting turned off (the Worker's), which /healthz names. */
  disabled?: readonly string[];
}

/**
 * The core: decides a request; `tokenName` names the token an Authorization value passed with
 * (for logs). `tokenCount` is this request's count under its token when the adapter has already
 * made it (a remembered decision's repeat, see remembered.ts): the core uses it rather than
 * count the request again.
 */
export interface EdgeCore {
  (request: EdgeRequest, tokenCount?: RateCount): Promise<EdgeDecision>;
  tokenName(authorization: string | null): string | null;
}

const NO_HEADERS: HeaderRecord = {};
const UNAUTHORIZED_HEADERS: HeaderRecord = { ...CHALLENGE_HEADERS, ...ERROR_HEADERS };
/** A method other than GET or HEAD on the static site: the API's 405 body, with the site's own Allow. */
const STATIC_NOT_ALLOWED_HEADERS: HeaderRecord = { Allow: STATIC_METHODS, ...ERROR_HEADERS };

export function createEdge({ index, tokenDigests, tokenNames = [], rateLimit, disabled = [] }: EdgeOptions): EdgeCore {
  const answers = new AnswerCache(index, policyHeaders(rateLimit));
  const health = healthCheck(index, answers, disabled);
  const tokens = tokenVerdicts(tokenDigests, tokenNames);
  const limiter = rateLimit && rateLimiter(rateLimit, answers);
  const resolveApi = apiAnswers(index, answers);

  /**
   * An /api/ or guarded app's request once any limit has let it through: without a valid token
   * the 401, so nothing about either leaks; with one, the API's answer, or the app handed over.
   */
  const answerApi = (request: EdgeRequest, verdict: Verdict, app?: string): Promise<EdgeResponse | AppHandOff> => {
    if (typeof verdict !== 'object')
      return answers.fixed(
        401,
        verdict === 'missing' ? 'token-required' : 'token-invalid',
        request,
        UNAUTHORIZED_HEADERS,
      );
    return app ? answers.guardedHandOff(app) : resolveApi(request);
  };

  const decide = async (request: EdgeRequest, tokenCount?: RateCount): Promise<EdgeDecision> => {
    // Method and path (the app at the path, the adapter's: looked up once a request).
    const route = routeOf(request);
    if (route === 'static') return STATIC;
    if (typeof route === 'object' && 'preflightOf' in route) return answers.preflight(route.preflightOf);
    if (typeof route === 'object' && !route.guarded) return answers.unguardedHandOff(route.name);
    if (route === 'api-folder') return answers.fixed(404, 'not-found', request, NO_HEADERS, OUTSIDE_API);
    if (route === 'static-method')
      return answers.fixed(405, 'method-not-allowed', request, STATIC_NOT_ALLOWED_HEADERS, OUTSIDE_API);
    if (route === 'health') return health(request);
    if (route === 'preflight') return answers.preflight();
    // The token: verified before the request is counted, so a valid one counts against itself alone.
    const authorization = request.header('authorization');
    const verdict = tokens.known(authorization) ?? (await tokens.verify(authorization));
    const app = typeof route === 'object' ? route.name : undefined;
    if (!limiter) return answerApi(request, verdict, app);
    // The limit.
    const count = await limiter.count(request, verdict, tokenCount);
    if (!count.allowed) return limiter.tooMany(request, count, typeof verdict === 'object' ? 'token' : 'address');
    // Resolve and answer.
    const tokenKey = typeof verdict === 'object' ? verdict.key : undefined;
    return countedAnswer(await answerApi(request, verdict, app), count, tokenKey);
  };
  decide.tokenName = (authorization: string | null) => {
    const known = tokens.known(authorization);
    return typeof known === 'object' ? known.name : null;
  };
  return decide;
}
