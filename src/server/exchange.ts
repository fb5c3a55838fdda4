// One request on its way through the Node server, from the core's decision to the bytes sent
// and its log line.
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EdgeDecision, EdgeRequest } from '../edge/core.ts';
import type { AppMount } from '../edge/apps.ts';
import { failureAnswer } from '../edge/failure.ts';
import { forwardedClient } from '../edge/forwarded.ts';
import { type AccessLog, durationMs } from './access-log.ts';
import { type PendingBody, readBody } from './app-bridge.ts';
import type { Generation } from './generations.ts';
import { KIND, type RequestTally } from './metrics.ts';
import { rawHeader, type RequestTarget } from './node-adapter.ts';
import { type Proxies, publicOrigin } from './public-origin.ts';
import { stderrLines } from './stderr.ts';
import { countBodyBytes } from './static-site.ts';

/**
 * One request on its way through the server: what the core reads of it (an EdgeRequest over
 * node:http's raw header list) and what answering and logging it need. One object a request,
 * with its work in methods, so the hot path makes no closures.
 */
export class Exchange implements EdgeRequest {
  readonly method: string;
  readonly pathname: string;
  readonly query: string;
  readonly client: string | null;
  /** The app at the request's path (request-handler.ts found it), which the core reads too. */
  readonly mount: AppMount<never> | undefined;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly generation: Generation;
  private readonly log: AccessLog | undefined;
  private readonly metrics: RequestTally | undefined;
  /** performance.now() when the request arrived, for the log and metrics. */
  private readonly start: number;
  private authorization: string | null | undefined = undefined;
  /** The body of a request to an app, read from its first byte on (else undefined: never read). */
  private readonly appBody: PendingBody | undefined;
  /** The trusted proxies, for the origin an app's links point to. */
  private readonly proxies: Proxies | undefined;

  constructor(
    request: IncomingMessage,
    response: ServerResponse,
    target: RequestTarget,
    mount: AppMount<never> | undefined,
    generation: Generation,
    log: AccessLog | undefined,
    start: number,
    proxies: Proxies | undefined,
    metrics: RequestTally | undefined,
  ) {
    this.method = request.method ?? 'GET';
    this.pathname = target.pathname;
    this.query = target.query;
    this.mount = mount;
    this.request = request;
    const peer = request.socket.remoteAddress ?? null;
    // Behind trusted proxies, the address they forward (the edge's rule); else the socket's.
    this.client =
      proxies === undefined || peer === null ? peer : forwardedClient(proxies.trusted, proxies.header, peer, this);
    this.proxies = proxies;
    this.response = response;
    this.generation = generation;
    this.log = log;
    this.metrics = metrics;
    this.start = start;
    this.appBody = mount && readBody(request, response, mount.maxBodyBytes);
  }

  header(name: string): string | null {
    if (name !== 'authorization') return rawHeader(this.request.rawHeaders, name);
    // Read by the core and again for the log's token name: found once.
    if (this.authorization === undefined) this.authorization = rawHeader(this.request.rawHeaders, name);
    return this.authorization;
  }

  answer(decision: EdgeDecision): void {
    const { send, serveStatic } = this.generation;
    if (decision.type === 'static') {
      if (this.log || this.metrics) {
        const sent = countBodyBytes(this.response);
        // Taken now: the static site rewrites request.url, and the log shows what the client asked.
        const target = this.request.url ?? '';
        // 'close', not 'finish': a client that closes its connection as the last bytes arrive gets no 'finish'.
        this.response.once('close', () => this.done(KIND.wiki, this.method === 'HEAD' ? 0 : sent(), target));
      }
      const path = this.query === '' ? this.pathname : `${this.pathname}?${this.query}`;
      // Counted as the wiki's 500 when the response closes.
      serveStatic(this.request, this.response, path).catch((error: unknown) => this.failed(error, false));
      return;
    }
    const answer = decision.type === 'counted' ? decision.answer : decision;
    const rateLimit = decision.type === 'counted' ? decision.rateLimit : undefined;
    if (answer.type === 'app') {
      const { apps, store } = this.generation;
      // The core hands over only at an app's path, whose body is being read.
      const body = this.appBody ?? Promise.resolve(Buffer.alloc(0));
      const origin = publicOrigin(this.request, this.proxies);
      apps(this.request, this.response, body, answer, store.index, rateLimit, origin).then(
        (bytes) => this.done(KIND[answer.app], bytes),
        (error: unknown) => this.failed(error),
      );
      return;
    }
    const bytes = send(this.response, answer, rateLimit);
    if (this.log || this.metrics) this.done(KIND.api, bytes);
  }

  /** A failure the core did not decide: the API's JSON 500 (src/edge/failure.ts), the detail to stderr. */
  failed(error: unknown, countAsFailed = true): void {
    const response = this.response;
    if (response.writableEnded || response.destroyed) return;
    stderrLines.sayError(`${this.method} ${this.pathname} failed:`, error);
    // Once headers went out, only a cut connection tells the client the body is incomplete.
    if (response.headersSent) response.destroy();
    else {
      const { status, headers, body } = failureAnswer();
      response.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) }).end(body);
    }
    if (countAsFailed) this.metrics?.answered(KIND.failed, 500, performance.now() - this.start);
  }

  /** A request of `kind` answered: its line logged and it counted (where they are on). `target`: as sent. */
  private done(kind: number | undefined, bytes: number, target = this.request.url ?? ''): void {
    if (this.log === undefined && this.metrics === undefined) return;
    const answeredAt = performance.now();
    if (kind !== undefined) this.metrics?.answered(kind, this.response.statusCode, answeredAt - this.start);
    this.log?.add(
      {
        method: this.method,
        path: target,
        status: this.response.statusCode,
        bytes,
        durationMs: durationMs(this.start, answeredAt),
        token: this.generation.tokenName(this.header('authorization')),
        client: this.client,
      },
      answeredAt,
    );
  }
}
