// The local server: the edge core over node:http, the static site beside it. Everything
// under /api/ goes through the core; everything else is the wiki, served by serve-handler.
// Here: its options, listening and closing; a generation is generations.ts, a request
// request-handler.ts and exchange.ts.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RateLimit } from '../schema/environment.ts';
import { configuredTokens } from '../edge/tokens.ts';
import type { ForwardingHeader } from '../edge/forwarded.ts';
import type { TrustedProxies } from '../edge/trusted-proxies.ts';
import type { AccessLog } from './access-log.ts';
import { ALLOWED_METHODS } from '../contract/headers.ts';
import type { BuildManifest } from '../schema/manifest.ts';
import { clientErrorStatus, LIMITS } from './limits.ts';
import { appBridge } from './app-bridge.ts';
import type { AppMount } from '../edge/apps.ts';
import { type AppSettings, MOUNTS } from '../apps/mounts.ts';
import type { RequestTally } from './metrics.ts';
import type { RateCounter } from './rate-counter.ts';
import { counting, loadGeneration } from './generations.ts';
import { requestHandler } from './request-handler.ts';

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

/** No proxy here: CONNECT is a method this server does not allow, on any path. */
const CONNECT_REFUSED = [
  'HTTP/1.1 405 Method Not Allowed',
  `Allow: ${ALLOWED_METHODS}`,
  'Connection: close',
  'Content-Length: 0',
  '\r\n',
].join('\r\n');

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
