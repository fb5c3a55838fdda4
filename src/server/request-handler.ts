// What the Node server does with each request: the refusals before routing (the queue, a body
// past its bound, a target it cannot read), then an Exchange through the core.
import type { IncomingMessage, ServerResponse } from 'node:http';
// Not the global: Node defines that one as a lazy getter, looked up again on each read.
import { performance } from 'node:perf_hooks';
import type { AccessLog } from './access-log.ts';
import { Exchange } from './exchange.ts';
import { mountAt } from '../edge/apps.ts';
import type { Generation } from './generations.ts';
import { admitQueued, limitBody } from './limits.ts';
import { KIND, type RequestTally } from './metrics.ts';
import { rawHeader, requestTarget } from './node-adapter.ts';
import type { Proxies } from './public-origin.ts';

const PLAIN_TEXT = 'text/plain; charset=utf-8';

/** What the server does with one request, given the generation serving now and whether it is closing. */
export function requestHandler(
  state: { current: Generation; closing: boolean },
  log: AccessLog | undefined,
  proxies: Proxies | undefined,
  metrics: RequestTally | undefined,
) {
  // A request refused before routing, counted (a log line is only the routed requests').
  const refused = (response: ServerResponse, start: number) =>
    metrics?.answered(KIND.refused, response.statusCode, performance.now() - start);
  return (request: IncomingMessage, response: ServerResponse) => {
    const start = log === undefined && metrics === undefined ? 0 : performance.now();
    if (!admitQueued(request, response)) return;
    // Once closing, every response ends its connection, so keep-alive clients neither linger nor send more.
    if (state.closing) response.setHeader('Connection', 'close');
    const rawHeaders = request.rawHeaders;
    const target = requestTarget(request.url ?? '');
    // The app at the request's path, if one is, found once (the core reads it from the Exchange): it
    // bounds its own body (app-bridge.ts), to answer one past it with its own 413, so its body is
    // read from the first byte on.
    const mount = target ? mountAt(target.pathname, state.current.apps.on) : undefined;
    if (!mount && !limitBody(request, (name) => rawHeader(rawHeaders, name))) {
      response.writeHead(413, { 'Content-Type': PLAIN_TEXT, Connection: 'close' }).end('Request body too large\n');
      refused(response, start);
      return;
    }
    if (!target) {
      response.writeHead(400, { 'Content-Type': PLAIN_TEXT, Connection: 'close' }).end('Bad request target\n');
      refused(response, start);
      return;
    }
    const exchange = new Exchange(request, response, target, mount, state.current, log, start, proxies, metrics);
    // A request seen before is answered at once; any other waits for the core.
    const decision = exchange.generation.edge.decide(exchange);
    if (decision instanceof Promise)
      decision.then(
        (decided) => exchange.answer(decided),
        (error: unknown) => exchange.failed(error),
      );
    else exchange.answer(decision);
  };
}
