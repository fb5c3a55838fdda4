// Raw HTTP/1.1 over node:net, for what fetch cannot send or will not show: a GET with a
// body, repeated headers, targets with malformed percent sequences, exact Content-Encoding
// bytes, and whether anything follows a HEAD or 304 response's headers on the wire.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  statusText: string;
  /** Header fields as sent, in order, names as the server spelled them. */
  headerList: [name: string, value: string][];
  /** Lower-case names; repeated fields joined by ", ", as fetch's Headers does. */
  headers: Record<string, string>;
  /** The body as sent (still content-encoded), de-chunked. Empty for HEAD, 1xx, 204 and 304. */
  body: Buffer;
}

export interface RawRequest {
  method?: string;
  /** The request target exactly as it goes on the wire: "/api/trees?search=%zz". */
  target: string;
  /** Sent in this order, repeats allowed. Host is added unless given. */
  headers?: [name: string, value: string][];
  body?: string | Buffer;
}

export class HttpParseError extends Error {
  override name = 'HttpParseError';
}

/** Bytes of one HTTP/1.1 request; Content-Length is added for a body unless a framing header is given. */
export function requestBytes(host: string, { method = 'GET', target, headers = [], body }: RawRequest): Buffer {
  const has = (name: string) => headers.some(([given]) => given.toLowerCase() === name);
  const fields: [string, string][] = [...headers];
  if (!has('host')) fields.unshift(['Host', host]);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  if (body !== undefined && !has('content-length') && !has('transfer-encoding'))
    fields.push(['Content-Length', String(payload.length)]);
  const head = `${method} ${target} HTTP/1.1\r\n${fields.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** What `take` found in the received bytes, and how many of them it used. */
export type Taken<T> = { value: T; used: number } | undefined;

export interface RawConnection {
  write(bytes: Buffer | string): void;
  /**
   * Waits until `take` finds what it wants at the start of the bytes received and not yet
   * taken (it returns undefined to wait for more); `ended` says the server has closed.
   */
  read<T>(take: (received: Buffer, ended: boolean) => Taken<T>, timeoutMs?: number): Promise<T>;
  /** Bytes received and not yet taken. */
  pending(): Buffer;
  close(): void;
}

/** A TCP connection to `origin` (http://host:port). The client never half-closes. */
export function openConnection(origin: string): Promise<RawConnection> {
  const { hostname, port } = new URL(origin);
  const socket: Socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
  let received = Buffer.alloc(0);
  let ended = false;
  let failure: Error | undefined;
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on('error', (error) => {
    failure = error;
    wake();
  });
  socket.on('close', () => {
    ended = true;
    wake();
  });
  const connection: RawConnection = {
    write: (bytes) => void socket.write(bytes),
    pending: () => received,
    close: () => void socket.destroy(),
    read(take, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            finish(
              new Error(
                `nothing complete from ${origin} within ${timeoutMs} ms; ` +
                  `received ${JSON.stringify(received.toString('latin1').slice(0, 300))}`,
              ),
            ),
          timeoutMs,
        );
        const finish = (error?: Error) => {
          clearTimeout(timer);
          wake = () => {};
          if (error) reject(error);
        };
        wake = () => {
          try {
            const taken = take(received, ended || failure !== undefined);
            if (taken) {
              received = received.subarray(taken.used);
              finish();
              resolve(taken.value);
            } else if (failure) finish(failure);
            else if (ended)
              finish(
                new Error(
                  `${origin} closed the connection; ` +
                    `received ${JSON.stringify(received.toString('latin1').slice(0, 300))}`,
                ),
              );
          } catch (error) {
            finish(error as Error);
          }
        };
        wake();
      });
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(connection));
    socket.once('error', reject);
  });
}

/** A request in flight, for a drain test: its request line and half its headers sent. */
export interface HalfSentRequest {
  /** Sends the rest: the token's Authorization, identity encoding and the blank line. */
  finish(): void;
  /** Resolves when the connection is closed (or has failed). */
  closed: Promise<void>;
  /** The bytes received so far. */
  received(): Buffer;
}

/** Opens a connection to `origin` and sends half of a GET of `path`; the rest waits for `finish`. */
export async function halfSentRequest(origin: string, token: string, path = '/api/trees'): Promise<HalfSentRequest> {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A failure closes the socket too: what was received says what went wrong.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n`);
  return {
    finish: () => void socket.write(`Authorization: Bearer ${token}\r\nAccept-Encoding: identity\r\n\r\n`),
    closed,
    received: () => Buffer.concat(chunks),
  };
}

/**
 * Parses the first response of a whole capture (the server has closed); `rest` is whatever
 * follows it: the next pipelined response, or bytes the server should not have sent.
 */
export function parseResponse(bytes: Buffer, method = 'GET'): { response: RawResponse; rest: Buffer } {
  const taken = takeResponse(bytes, method, true);
  if (!taken) throw new HttpParseError('no response');
  return { response: taken.value, rest: bytes.subarray(taken.used) };
}

/**
 * Parses the response at the start of `bytes`: undefined while it is incomplete and the
 * connection still open (`ended` false). `method` decides whether a body follows at all
 * (HEAD: never). Without Content-Length or chunking, the body runs to the close.
 */
export function takeResponse(bytes: Buffer, method = 'GET', ended = true): Taken<RawResponse> {
  const incomplete = (what: string) => {
    if (ended) throw new HttpParseError(`response cut short: ${what}`);
    return undefined;
  };
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return incomplete(`no end of headers in ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const statusMatch = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
  if (!statusMatch) throw new HttpParseError(`not a status line: ${JSON.stringify(statusLine)}`);
  const status = Number(statusMatch[1]);
  const headerList = lines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpParseError(`not a header field: ${JSON.stringify(line)}`);
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of headerList) {
    const key = name.toLowerCase();
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  const bodyStart = headEnd + 4;
  const head = { status, statusText: statusMatch[2] ?? '', headerList, headers };
  const withBody = (body: Buffer, used: number) => ({ value: { ...head, body }, used });

  if (method.toUpperCase() === 'HEAD' || status < 200 || status === 204 || status === 304)
    return withBody(Buffer.alloc(0), bodyStart);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks = dechunk(bytes, bodyStart);
    return chunks ? withBody(chunks.body, chunks.end) : incomplete('chunked body');
  }
  const length = headers['content-length'];
  if (length === undefined) return ended ? withBody(bytes.subarray(bodyStart), bytes.length) : undefined;
  if (!/^\d+$/.test(length)) throw new HttpParseError(`bad Content-Length: ${JSON.stringify(length)}`);
  const end = bodyStart + Number(length);
  return bytes.length >= end
    ? withBody(bytes.subarray(bodyStart, end), end)
    : incomplete(`${bytes.length - bodyStart} of ${length} body bytes`);
}

/** The de-chunked body starting at `offset` and where it ends, or undefined while incomplete. */
function dechunk(bytes: Buffer, offset: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const sizeText = bytes.subarray(offset, lineEnd).toString('latin1').split(';')[0]?.trim() ?? '';
    if (!/^[0-9a-f]+$/i.test(sizeText)) throw new HttpParseError(`bad chunk size: ${JSON.stringify(sizeText)}`);
    const size = parseInt(sizeText, 16);
    if (size === 0) {
      // Trailer fields, if any, end with an empty line.
      const trailerEnd = bytes.indexOf('\r\n\r\n', lineEnd);
      return trailerEnd < 0 ? undefined : { body: Buffer.concat(parts), end: trailerEnd + 4 };
    }
    const chunkStart = lineEnd + 2;
    if (bytes.length < chunkStart + size + 2) return undefined;
    parts.push(bytes.subarray(chunkStart, chunkStart + size));
    offset = chunkStart + size + 2;
  }
}

/**
 * Sends `requests` one after another on one connection, each once the previous response is
 * complete, so a byte a response should not have had (a body after HEAD or 304) breaks the
 * parse of the next one.
 */
export async function rawExchange(
  origin: string,
  requests: readonly RawRequest[],
  timeoutMs?: number,
): Promise<RawResponse[]> {
  const connection = await openConnection(origin);
  try {
    const responses: RawResponse[] = [];
    for (const request of requests) {
      connection.write(requestBytes(new URL(origin).host, request));
      responses.push(
        await connection.read((received, ended) => takeResponse(received, request.method, ended), timeoutMs),
      );
    }
    return responses;
  } finally {
    connection.close();
  }
}

/** Sends one raw request and parses its response. */
export async function rawRequest(origin: string, request: RawRequest, timeoutMs?: number): Promise<RawResponse> {
  const [response] = await rawExchange(origin, [request], timeoutMs);
  if (!response) throw new HttpParseError('no response');
  return response;
}

/** Sends bytes as they are and collects every byte until the server closes the connection. */
export async function sendRaw(origin: string, bytes: Buffer | string, timeoutMs?: number): Promise<Buffer> {
  const connection = await openConnection(origin);
  try {
    connection.write(bytes);
    return await connection.read(
      (received, ended) => (ended ? { value: received, used: received.length } : undefined),
      timeoutMs,
    );
  } finally {
    connection.close();
  }
}

/** Every response in `bytes`, a whole exchange whose connection has closed (pipelined requests: one method each). */
export function parseResponses(bytes: Buffer, methods: readonly string[] = []): RawResponse[] {
  const responses: RawResponse[] = [];
  for (let rest = bytes; rest.length > 0; ) {
    const taken = takeResponse(rest, methods[responses.length]);
    if (!taken) break;
    responses.push(taken.value);
    rest = rest.subarray(taken.used);
  }
  return responses;
}
