// /mcp on node:http: the request's body read (bounded) as it arrives, a Web Request made of it
// for src/edge/mcp.ts, and its Response written back. The body is taken from the first event
// on (a chunk that arrived before this listener would be lost to it), bounded here alone: the
// server's own bound on bodies (limits.ts) leaves /mcp to this one, so a body over it, whatever
// its declared length, gets the JSON-RPC 413 of src/edge/mcp.ts after the token check.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHandOff } from '../edge/core.ts';
import { answerMcp } from '../edge/mcp.ts';
import { MCP_MAX_BODY_BYTES } from '../contract/mcp/bounds.ts';
import type { RouteIndex } from '../contract/resolve.ts';

/** The body as read, or that it is over the bound (declared or sent): it is then refused unread. */
export type PendingBody = Promise<Buffer | 'too large'>;

/**
 * Starts reading the body of a request to /mcp (or to another endpoint that bounds its own body
 * at `limit`: the Discord app's); resolves at its end, or once it is over the bound. A body over
 * it is read no further, and whatever answers the request (the 413, or a 401 or 429 before it)
 * closes the connection, which cannot carry another request.
 */
export function readMcpBody(
  request: IncomingMessage,
  response: ServerResponse,
  limit = MCP_MAX_BODY_BYTES,
): PendingBody {
  const tooLarge = () => {
    request.pause();
    if (!response.headersSent) response.setHeader('Connection', 'close');
    return 'too large' as const;
  };
  if (Number(request.headers['content-length']) > limit) return Promise.resolve(tooLarge());
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = () => {
      request.off('data', take);
      resolve(length > limit ? tooLarge() : Buffer.concat(chunks));
    };
    const take = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length > limit) done();
    };
    request.on('data', take);
    request.once('end', done);
    // A client that goes away mid-body: what came is answered (a parse error), to no one.
    request.once('close', done);
  });
}

/** Answers a request to /mcp the core let through; the number of body bytes sent, for the log. */
export async function sendMcp(
  request: IncomingMessage,
  response: ServerResponse,
  body: PendingBody,
  index: RouteIndex,
  handOff: McpHandOff,
  rateLimit: string | undefined,
  origin: string,
): Promise<number> {
  const answer = await answerMcp(await webRequest(request, body, MCP_MAX_BODY_BYTES, origin), index, handOff.headers);
  return writeAnswer(request, response, answer, rateLimit);
}

/**
 * A Web Request of a node:http request and its body as read (a body over `limit` declared so,
 * unread), its URL on `origin`: the one the request came to (publicOrigin in public-origin.ts).
 */
export async function webRequest(
  request: IncomingMessage,
  body: PendingBody,
  limit: number,
  origin: string,
): Promise<Request> {
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let at = 0; at + 1 < raw.length; at += 2) {
    const name = (raw[at] ?? '').toLowerCase();
    // The body is handed over whole: its framing is the Request's own.
    if (name !== 'content-length' && name !== 'transfer-encoding') headers.append(name, raw[at + 1] ?? '');
  }
  const method = request.method ?? 'GET';
  const read = method === 'POST' ? await body : undefined;
  // Over the bound: declared so, and the endpoint refuses it by its length without reading.
  if (read === 'too large') headers.set('content-length', String(limit + 1));
  const url = `${origin}${request.url ?? '/'}`;
  return new Request(URL.canParse(url) ? url : `${origin}/`, {
    method,
    headers,
    body: read instanceof Buffer ? new Uint8Array(read) : undefined,
  });
}

/** Writes a Web Response (with the request's RateLimit, if any); the number of body bytes sent, for the log. */
export async function writeAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  answer: Response,
  rateLimit?: string,
): Promise<number> {
  const bytes = Buffer.from(await answer.arrayBuffer());
  const sent: Record<string, string> = Object.fromEntries(answer.headers);
  if (rateLimit !== undefined) sent['RateLimit'] = rateLimit;
  sent['Content-Length'] = String(bytes.length);
  response.writeHead(answer.status, sent).end(bytes);
  return request.method === 'HEAD' ? 0 : bytes.length;
}
