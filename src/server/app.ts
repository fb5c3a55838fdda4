// The local server: the edge core over node:http, the static site beside it. Everything
// under /api/ goes through the core; everything else is the wiki, served by serve-handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
// Not the global: Node defines that one as a lazy getter, looked up again on each read.
import { performance } from 'node:perf_hooks';
import type { RateLimit } from '../schema/environment.ts';
import { createEdge, type EdgeCore, type EdgeDecision, type EdgeRateLimit, type EdgeRequest } from '../edge/core.ts';
import { type AppMount, mountAt } from '../edge/apps.ts';
import { type AppSettings, MOUNTS } from '../apps/mounts.ts';
import { type CountNow, rememberDecisions, type RememberedEdge } from '../edge/remembered.ts';
import { type ConfiguredToken, configuredTokens } from '../edge/tokens.ts';
import { failureAnswer } from '../edge/failure.ts';
import { type ForwardingHeader, forwardedClient } from '../edge/forwarded.ts';
import type { TrustedProxies } from '../edge/trusted-proxies.ts';
import { type AccessLog, durationMs } from './access-log.ts';
import { ALLOWED_METHODS } from '../contract/headers.ts';
import type { BuildManifest } from '../schema/manifest.ts';
import { loadBodyStore, type BodyStore } from './body-store.ts';
import { admitQueued, clientErrorStatus, limitBody, LIMITS } from './limits.ts';
import { type AppBridge, appBridge, type PendingBody, readBody } from './app-bridge.ts';
import { decisionSender, rawHeader, type RequestTarget, requestTarget, type SendDecision } from './node-adapter.ts';
import { KIND, type RequestTally } from './metrics.ts';
import { localRateCounter, type RateCounter } from './rate-counter.ts';
import { stderrLines } from './stderr.ts';
import { countBodyBytes, staticSite, type StaticSite } from './static-site.ts';
import { type Proxies, publicOrigin } from './public-origin.ts';

/** The options of a server, the apps' settings among them (AppSettings, src/apps/mounts.ts). */
export interface ServerOptions extends AppSettings {
  distDir: string;
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** Plaintext tokens. */
  tokens?: readonly string[];
  /** Lowercase hex SHA-256 digests of tokens. */
  tokenSha256?: readonly string[];
  /** API_RATE_LIMIT; off when absent. */
  rateLimit?: RateLimit | undefined;
  /**
   * What counts requests under the limit when it is not this process's own count (rate-ipc.ts
   * under the supervisor); by default a count held in this process.
   */
  rateCounter?: RateCounter;
  /** The time this process's own count tells its windows by (Date.now; tests hold it mid-window). */
  rateClock?: () => number;
  /** Where each request's line goes; no log when absent. */
  accessLog?: AccessLog | undefined;
  /** Where each request is counted for METRICS (metrics.ts); not counted when absent. */
  tally?: RequestTally | undefined;
  /** TRUST_PROXY: the proxies whose forwarded client address is believed; off (the socket's address) when absent. */
  trustProxy?: TrustedProxies | undefined;
  /** TRUST_PROXY_HEADER: the header they forward it in; X-Forwarded-For when absent. */
  trustProxyHeader?: ForwardingHeader;
  /** The apps mounted (src/apps/mounts.ts's MOUNTS when absent; a test adds its own). */
  apps?: readonly AppMount<AppSettings>[];
}

export interface RunningServer {
  url: string;
  server: Server;
  /** The manifest of the build being served. */
  manifest(): BuildManifest;
  /**
   * Loads dist/ again off the event loop; the new build replaces the old only if it is
   * complete and verified. Reloads run one after another, so the latest request wins.
   */
  reload(): Promise<BuildManifest>;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** One build being served: its API bodies, the core over its manifest, its static site. */
interface Generation {
  store: BodyStore;
  edge: RememberedEdge;
  /** The name of the token an Authorization value passed with (the core's), for the log. */
  tokenName: (authorization: string | null) => string | null;
  send: SendDecision;
  serveStatic: StaticSite;
  /** The edge's apps (/mcp, and the Discord app when it is on). */
  apps: AppBridge;
}

/** The rate limit the core enforces, and the same count when it answers at once (this process's own). */
interface Counting {
  rateLimit: EdgeRateLimit;
  countNow?: CountNow;
}

function counting(limit: RateLimit, counter: RateCounter | undefined, clock?: () => number): Counting {
  if (counter) return { rateLimit: { limit, count: counter } };
  const count = localRateCounter(limit, clock);
  return { rateLimit: { limit, count }, countNow: count };
}

async function loadGeneration(
  distDir: string,
  tokens: readonly ConfiguredToken[],
  limited: Counting | undefined,
  apps: AppBridge,
): Promise<Generation> {
  const store = await loadBodyStore(distDir);
  const core = createEdge({
    index: store.index,
    tokenDigests: tokens.map(({ digest }) => digest),
    tokenNames: tokens.map(({ name }) => name),
    rateLimit: limited?.rateLimit,
    apps: apps.on,
  });
  return {
    store,
    // A count of this process's own lets remembered answers be counted without the core.
    edge: rememberDecisions(core, limited?.countNow),
    tokenName: lastTokenName(core),
    send: decisionSender(store),
    serveStatic: await staticSite(distDir),
    apps,
  };
}

/**
 * The core's token name of an Authorization value, kept for the value last asked about: a
 * client's requests repeat it, and comparing it costs less than the core's lookup by its hash.
 */
function lastTokenName(core: EdgeCore): (authorization: string | null) => string | null {
  let last: string | null | undefined;
  let name: string | null = null;
  return (authorization) => {
    if (authorization !== last) {
      last = authorization;
      name = core.tokenName(authorization);
    }
    return name;
  };
}

const PLAIN_TEXT = 'text/plain; charset=utf-8';
/** No proxy here: CONNECT is a method this server does not allow, on any path. */
const CONNECT_REFUSED = [
  'HTTP/1.1 405 Method Not Allowed',
  `Allow: ${ALLOWED_METHODS}`,
  'Connection: close',
  'Content-Length: 0',
  '\r\n',
].join('\r\n');

/** What the server does with one request, given the generation serving now and whether it is closing. */
function requestHandler(
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
    // The app at the request's path, if one is: it bounds its own body (app-bridge.ts), to answer
    // one past it with its own 413, so its body is read from the first byte on.
    const app = target && mountAt(target.pathname, state.current.apps.on);
    if (!app && !limitBody(request, (name) => rawHeader(rawHeaders, name))) {
      response.writeHead(413, { 'Content-Type': PLAIN_TEXT, Connection: 'close' }).end('Request body too large\n');
      refused(response, start);
      return;
    }
    if (!target) {
      response.writeHead(400, { 'Content-Type': PLAIN_TEXT, Connection: 'close' }).end('Bad request target\n');
      refused(response, start);
      return;
    }
    const exchange = new Exchange(request, response, target, app, state.current, log, start, proxies, metrics);
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

/**
 * One request on its way through the server: what the core reads of it (an EdgeRequest over
 * node:http's raw header list) and what answering and logging it need. One object a request,
 * with its work in methods, so the hot path makes no closures.
 */
class Exchange implements EdgeRequest {
  readonly method: string;
  readonly pathname: string;
  readonly query: string;
  readonly client: string | null;
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
    app: AppMount<never> | undefined,
    generation: Generation,
    log: AccessLog | undefined,
    start: number,
    proxies: Proxies | undefined,
    metrics: RequestTally | undefined,
  ) {
    this.method = request.method ?? 'GET';
    this.pathname = target.pathname;
    this.query = target.query;
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
    this.appBody = app && readBody(request, response, app.maxBodyBytes);
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

/**
 * The limits node:http has no option for: an idle socket is closed, an unparsable request
 * answered, and so is CONNECT (which node:http hands over as a raw socket, or drops unanswered).
 */
function guardConnections(server: Server): void {
  server.on('connection', (socket: Socket) => socket.setTimeout(LIMITS.socketIdleMs, () => socket.destroy()));
  server.on('connect', (_request: IncomingMessage, socket: Socket) => socket.end(CONNECT_REFUSED));
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && !socket.writableEnded)
      socket.end(`HTTP/1.1 ${clientErrorStatus(error)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });
}

/** Listens on `port` and `host`; the server's URL. */
async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${hostname}:${address.port}`;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const tokens = await configuredTokens({
    API_TOKENS: options.tokens?.join(','),
    API_TOKEN_SHA256: options.tokenSha256?.join(','),
  });
  // One count for the server's life: a reload keeps every window's count.
  const limited = options.rateLimit && counting(options.rateLimit, options.rateCounter, options.rateClock);
  const apps = appBridge(options.apps ?? MOUNTS, options);
  // One reference: a reload swaps the whole generation, so no request sees a mix of two.
  const state = { current: await loadGeneration(options.distDir, tokens, limited, apps), closing: false };
  let reloads: Promise<unknown> = Promise.resolve();
  const server = createServer(
    {
      maxHeaderSize: LIMITS.maxHeaderBytes,
      headersTimeout: LIMITS.headersTimeoutMs,
      requestTimeout: LIMITS.requestTimeoutMs,
      keepAliveTimeout: LIMITS.keepAliveTimeoutMs,
      // How often the two timeouts above are checked (Node's default, 30 s, would stretch them).
      connectionsCheckingInterval: 1_000,
    },
    requestHandler(
      state,
      options.accessLog,
      options.trustProxy && { trusted: options.trustProxy, header: options.trustProxyHeader ?? 'x-forwarded-for' },
      options.tally,
    ),
  );
  guardConnections(server);
  return {
    url: await listen(server, options.port ?? 0, options.host ?? '127.0.0.1'),
    server,
    manifest: () => state.current.store.manifest,
    reload() {
      const next = reloads.then(async () => {
        state.current = await loadGeneration(options.distDir, tokens, limited, apps);
        return state.current.store.manifest;
      });
      reloads = next.catch(() => undefined);
      return next;
    },
    async close(graceMs = LIMITS.shutdownGraceMs) {
      state.closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
