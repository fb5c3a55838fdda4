// The local server: the edge core over node:http, the static site beside it. Everything
// under /api/ goes through the core; everything else is the wiki, served by serve-handler.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createEdge, type EdgeDecision, type EdgeRequest } from '../edge/core.ts';
import { tokenDigests, type Digest } from '../edge/tokens.ts';
import type { Manifest } from '../schema/manifest.ts';
import { loadBodyStore, type BodyStore } from './body-store.ts';
import { admitQueued, clientErrorStatus, limitBody, LIMITS } from './limits.ts';
import { requestUrl, sendDecision, toEdgeRequest } from './node-adapter.ts';
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
  manifest(): Manifest;
  /**
   * Loads dist/ again off the event loop; the new build replaces the old only if it is
   * complete and verified. Reloads run one after another, so the latest request wins.
   */
  reload(): Promise<Manifest>;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** One build being served: its API bodies, the core over its manifest, its static site. */
interface Generation {
  store: BodyStore;
  decide: (request: EdgeRequest) => EdgeDecision;
  serveStatic: StaticSite;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const digests: Digest[] = tokenDigests({
    API_TOKENS: options.tokens?.join(','),
    API_TOKEN_SHA256: options.tokenSha256?.join(','),
  });
  const load = async (): Promise<Generation> => {
    const store = await loadBodyStore(options.distDir);
    return {
      store,
      decide: createEdge({ manifest: store.manifest, tokenDigests: digests }),
      serveStatic: await staticSite(options.distDir),
    };
  };
  // One reference: a reload swaps the whole generation, so no request sees a mix of two.
  let current = await load();
  let reloads: Promise<unknown> = Promise.resolve();

  // Once closing, every response ends its connection, so keep-alive clients neither linger nor send more.
  let closing = false;
  const server = createServer(
    {
      maxHeaderSize: LIMITS.maxHeaderBytes,
      headersTimeout: LIMITS.headersTimeoutMs,
      requestTimeout: LIMITS.requestTimeoutMs,
      keepAliveTimeout: LIMITS.keepAliveTimeoutMs,
      // How often the two timeouts above are checked (Node's default, 30 s, would stretch them).
      connectionsCheckingInterval: 1_000,
    },
    (request, response) => {
      if (!admitQueued(request, response)) return;
      if (closing) response.setHeader('Connection', 'close');
      if (!limitBody(request)) {
        response
          .writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' })
          .end('Request body too large\n');
        return;
      }
      const url = requestUrl(request.url ?? '');
      if (!url) {
        response
          .writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' })
          .end('Bad request target\n');
        return;
      }
      const { store, decide, serveStatic } = current;
      const decision = decide(toEdgeRequest(request, url));
      if (decision.type === 'respond') {
        sendDecision(response, decision, store);
        return;
      }
      if (decision.type === 'lookup') {
        sendDecision(response, decision.answer(decision.files.map((file) => store.text(file))), store);
        return;
      }
      serveStatic(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('Internal error\n');
      });
    },
  );
  server.on('connection', (socket: Socket) => socket.setTimeout(LIMITS.socketIdleMs, () => socket.destroy()));
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && !socket.writableEnded)
      socket.end(`HTTP/1.1 ${clientErrorStatus(error)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    server,
    manifest: () => current.store.manifest,
    reload() {
      const next = reloads.then(async () => {
        current = await load();
        return current.store.manifest;
      });
      reloads = next.catch(() => undefined);
      return next;
    },
    async close(graceMs = LIMITS.shutdownGraceMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
