// The local server: the edge core over node:http, the static site beside it. Everything
// under /api/ goes through the core; everything else is the wiki, served by serve-handler.
import type { lstat as lstatWithCallback } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import serveHandler from 'serve-handler';
import { createEdge, type EdgeDecision, type EdgeRequest } from '../edge/core.ts';
import { tokenDigests, type Digest } from '../edge/tokens.ts';
import type { Manifest } from '../schema/manifest.ts';
import { loadBodyStore, type BodyStore } from './body-store.ts';
import { requestUrl, sendDecision, toEdgeRequest } from './node-adapter.ts';

/** The limits that keep slow or abusive clients from tying the server up (see README). */
export const LIMITS = {
  /** Longest a request line and headers may take to arrive. */
  headersTimeoutMs: 10_000,
  /** Longest a whole request may take to arrive. */
  requestTimeoutMs: 30_000,
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: 5_000,
  /** A connection with no traffic either way for this long is closed (e.g. a client that never reads). */
  socketIdleMs: 60_000,
  /** Request line plus headers; larger requests get 431. */
  maxHeaderBytes: 16 * 1024,
  /**
   * Pipelined requests whose responses a connection has not yet taken; past it (a client that
   * sends requests but never reads) the connection is closed, so its backlog cannot grow.
   */
  maxQueuedResponses: 32,
  /** Request bodies are never read; past this size the connection is closed. */
  maxBodyBytes: 64 * 1024,
  /** How long SIGTERM waits for in-flight requests before closing connections. */
  shutdownGraceMs: 10_000,
};

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

interface Generation {
  store: BodyStore;
  decide: (request: EdgeRequest) => EdgeDecision;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const digests: Digest[] = tokenDigests({
    API_TOKENS: options.tokens?.join(','),
    API_TOKEN_SHA256: options.tokenSha256?.join(','),
  });
  const load = async (): Promise<Generation> => {
    const store = await loadBodyStore(options.distDir);
    return { store, decide: createEdge({ manifest: store.manifest, tokenDigests: digests }) };
  };
  // One reference: a reload swaps the whole generation, so no request sees a mix of two.
  let current = await load();
  let reloads: Promise<unknown> = Promise.resolve();

  const serveStatic = (request: IncomingMessage, response: ServerResponse) =>
    serveHandler(request, response, { public: options.distDir, directoryListing: false, etag: true }, { lstat: lstatOrNotFound });

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
        response.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end('Request body too large\n');
        return;
      }
      const url = requestUrl(request.url ?? '');
      if (!url) {
        response.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end('Bad request target\n');
        return;
      }
      const { store, decide } = current;
      const decision = decide(toEdgeRequest(request, url));
      if (decision.type === 'respond') {
        sendDecision(response, decision, store);
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
    if (socket.writable && !socket.writableEnded) socket.end(`HTTP/1.1 ${clientErrorStatus(error)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
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

/**
 * lstat for the static site: a path no file can have (a NUL byte, a name too long) is simply
 * not there, so serve-handler answers 404 rather than 500. (Its types name the callback
 * lstat; it awaits a promise.)
 */
const lstatOrNotFound = (async (path: string) => {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ENAMETOOLONG') throw Object.assign(new Error(`${code}: no such file`), { code: 'ENOENT' });
    throw error;
  }
}) as unknown as typeof lstatWithCallback;

const queuedResponses = new WeakMap<Socket, number>();

/** Counts a connection's unfinished responses; false (and the connection closed) past the limit. */
function admitQueued(request: IncomingMessage, response: ServerResponse): boolean {
  const socket = request.socket;
  const queued = (queuedResponses.get(socket) ?? 0) + 1;
  queuedResponses.set(socket, queued);
  response.once('close', () => queuedResponses.set(socket, (queuedResponses.get(socket) ?? 1) - 1));
  if (queued <= LIMITS.maxQueuedResponses) return true;
  socket.destroy();
  return false;
}

/** The status Node itself would answer a request it cannot parse or wait for with. */
function clientErrorStatus(error: NodeJS.ErrnoException): string {
  if (error.code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  return '400 Bad Request';
}

/**
 * The body of a request is never needed (a GET with a body is an ordinary GET); it is read
 * and dropped, and a client that sends too much is cut off. False: refuse with 413 now.
 */
function limitBody(request: IncomingMessage): boolean {
  if (Number(request.headers['content-length'] ?? 0) > LIMITS.maxBodyBytes) return false;
  let received = 0;
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > LIMITS.maxBodyBytes) request.socket.destroy();
  });
  return true;
}
