// The local server: the edge core over node:http, the static site beside it. Everything
// under /api/ goes through the core; everything else is the wiki, served by serve-handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ALLOWED_METHODS } from '../contract/headers.ts';
import { createEdge, type EdgeDecision, type EdgeResponse } from '../edge/core.ts';
import { rememberDecisions, type RememberedEdge } from '../edge/remembered.ts';
import { tokenDigests, type Digest } from '../edge/tokens.ts';
import type { BuildManifest } from '../schema/manifest.ts';
import { loadBodyStore, type BodyStore } from './body-store.ts';
import { admitQueued, clientErrorStatus, limitBody, LIMITS } from './limits.ts';
import { decisionSender, rawHeader, requestTarget } from './node-adapter.ts';
import { staticSite, type StaticSite } from './static-site.ts';

export interface ServerOptions {
  distDir: string;
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** Plaintext tokens. */
  tokens?: readonly string[];
  /** Lowercase hex SHA-256 digests of tokens. */
  tokenSha256?: readonly string[];
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
  send: (response: ServerResponse, decision: EdgeResponse) => void;
  serveStatic: StaticSite;
}

async function loadGeneration(distDir: string, tokenDigests: readonly Digest[]): Promise<Generation> {
  const store = await loadBodyStore(distDir);
  return {
    store,
    edge: rememberDecisions(createEdge({ index: store.index, tokenDigests })),
    send: decisionSender(store),
    serveStatic: await staticSite(distDir),
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
function requestHandler(state: { current: Generation; closing: boolean }) {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (!admitQueued(request, response)) return;
    // Once closing, every response ends its connection, so keep-alive clients neither linger nor send more.
    if (state.closing) response.setHeader('Connection', 'close');
    const rawHeaders = request.rawHeaders;
    const header = (name: string) => rawHeader(rawHeaders, name);
    if (!limitBody(request, header)) {
      response.writeHead(413, { 'Content-Type': PLAIN_TEXT, Connection: 'close' }).end('Request body too large\n');
      return;
    }
    const target = requestTarget(request.url ?? '');
    if (!target) {
      response.writeHead(400, { 'Content-Type': PLAIN_TEXT, Connection: 'close' }).end('Bad request target\n');
      return;
    }
    const { edge, send, serveStatic } = state.current;
    const failed = () => {
      if (response.writableEnded || response.destroyed) return;
      // Once headers went out, only a cut connection tells the client the body is incomplete.
      if (response.headersSent) response.destroy();
      else response.writeHead(500, { 'Content-Type': PLAIN_TEXT }).end('Internal error\n');
    };
    const answer = (decision: EdgeDecision) => {
      if (decision.type === 'respond') return send(response, decision);
      const path = target.query === '' ? target.pathname : `${target.pathname}?${target.query}`;
      serveStatic(request, response, path).catch(failed);
    };
    const edgeRequest = { method: request.method ?? 'GET', ...target, header };
    // A request seen before is answered at once; any other waits for the core.
    const known = edge.known(edgeRequest);
    if (known) answer(known);
    else edge.decide(edgeRequest).then(answer, failed);
  };
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
  const digests: Digest[] = await tokenDigests({
    API_TOKENS: options.tokens?.join(','),
    API_TOKEN_SHA256: options.tokenSha256?.join(','),
  });
  // One reference: a reload swaps the whole generation, so no request sees a mix of two.
  const state = { current: await loadGeneration(options.distDir, digests), closing: false };
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
    requestHandler(state),
  );
  guardConnections(server);
  return {
    url: await listen(server, options.port ?? 0, options.host ?? '127.0.0.1'),
    server,
    manifest: () => state.current.store.manifest,
    reload() {
      const next = reloads.then(async () => {
        state.current = await loadGeneration(options.distDir, digests);
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
