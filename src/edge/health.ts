// The health step of the edge core: GET /healthz says the service is up and which data it
// serves; never cached, never counted.
import { HEALTH_CACHE_CONTROL, healthBody } from '../contract/health.ts';
import { currentRoot, type RouteIndex } from '../contract/resolve.ts';
import { type AnswerCache, type MadeBody, madeBody, OUTSIDE_API } from './answers.ts';
import type { EdgeRequest, EdgeResponse, HeaderRecord } from './decision.ts';

const HEALTH_HEADERS: HeaderRecord = { 'Cache-Control': HEALTH_CACHE_CONTROL };

/** The answer to GET and HEAD /healthz of one build (naming the features `disabled`): its body made on the first. */
export function healthCheck(
  index: RouteIndex,
  answers: AnswerCache,
  disabled: readonly string[] = [],
): (request: EdgeRequest) => Promise<EdgeResponse> {
  let body: MadeBody | undefined;
  return async (request) => {
    const text = healthBody((await currentRoot(index)).version, disabled);
    body ??= await madeBody(text);
    return answers.respond(200, body, request, HEALTH_HEADERS, OUTSIDE_API);
  };
}
