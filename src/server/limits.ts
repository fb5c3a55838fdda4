// The limits that keep slow or abusive clients from tying the local server up, and the
// small guards that enforce the ones node:http has no option for. Documented in docs/limits.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The limits that keep slow or abusive clients from tying the server up (docs/limits.md). */
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
   * Pipelined requests whose responses a connection has not yet taken: a client that reads its
   * answers may pipeline this many; past it (a client that sends requests but never reads) the
   * connection is closed, so its backlog cannot grow. A waiting answer holds no file or copy of
   * a body (static files are opened in turn, API bodies are shared), so the cap can be generous.
   */
  maxQueuedResponses: 100,
  /** Request bodies are never read; past this size the connection is closed. */
  maxBodyBytes: 64 * 1024,
  /** How long SIGTERM waits for in-flight requests before closing connections. */
  shutdownGraceMs: 10_000,
};

/** A connection's responses not yet finished, kept on the socket itself (cheaper than a map). */
const QUEUED = Symbol('queued responses');
type CountedSocket = Socket & { [QUEUED]?: number };
const SOCKET = Symbol('socket');
type CountedResponse = ServerResponse & { [SOCKET]?: CountedSocket };

/** One listener for every response (no closure per request): its connection has one fewer queued. */
function responseClosed(this: CountedResponse): void {
  const socket = this[SOCKET];
  if (socket) socket[QUEUED] = (socket[QUEUED] ?? 1) - 1;
}

/** Counts a connection's unfinished responses; false (and the connection closed) past the limit. */
export function admitQueued(request: IncomingMessage, response: ServerResponse): boolean {
  const socket: CountedSocket = request.socket;
  const queued = (socket[QUEUED] ?? 0) + 1;
  socket[QUEUED] = queued;
  const counted: CountedResponse = response;
  counted[SOCKET] = socket;
  response.on('close', responseClosed);
  if (queued <= LIMITS.maxQueuedResponses) return true;
  socket.destroy();
  return false;
}

/** The status Node itself would answer a request it cannot parse or wait for with. */
export function clientErrorStatus(error: NodeJS.ErrnoException): string {
  if (error.code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  return '400 Bad Request';
}

/**
 * The body of a request is never needed (a GET with a body is an ordinary GET); it is read
 * and dropped, and a client that sends too much is cut off. False: refuse with 413 now.
 * `header` reads the request's headers; a request with neither Content-Length nor
 * Transfer-Encoding has no body, so nothing is watched.
 */
export function limitBody(request: IncomingMessage, header: (name: string) => string | null): boolean {
  const length = header('content-length');
  if (length === null && header('transfer-encoding') === null) return true;
  if (Number(length ?? 0) > LIMITS.maxBodyBytes) return false;
  let received = 0;
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > LIMITS.maxBodyBytes) request.socket.destroy();
  });
  return true;
}
