// The Node server's one bridge to the edge's apps (src/edge/apps.ts): a request the core hands to
// an app has its body read (bounded) as it arrives, a Web Request made of it, and the app's
// Response written back. A method outside the app's own is its 405 (with Allow) before anything
// is built from the request, so one that `new Request` refuses (TRACE) is answered too. The body
// is taken from the first event on (a chunk that arrived before this listener would be lost to
// it), bounded here alone: the server's own bound on bodies (limits.ts) leaves an app's path to
// this one, so a body over it, whatever its declared length, gets the app's own 413.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppSettings } from '../apps/mounts.ts';
import { type AppMount, type AppTable, appTable } from '../edge/apps.ts';
import type { AppHandOff } from '../edge/core.ts';
import type { RouteIndex } from '../contract/resolve.ts';

/** The body as read, or that it is over the bound (declared or sent): it is then refused unread. */
export type PendingBody = Promise<Buffer | 'too large'>;

/** Answers a request the core handed to an app; the number of body bytes sent, for the log. */
type AnswerApp = (
  request: IncomingMessage,
  response: ServerResponse,
  body: PendingBody,
  handOff: AppHandOff,
  index: RouteIndex,
  rateLimit: string | undefined,
  /** The origin the request came to (publicOrigin in public-origin.ts): the app's links point there. */
  origin: string,
) => Promise<number>;

/** The apps' bridge: answers a request the core handed to an app, and says which apps are on. */
export interface AppBridge extends AnswerApp {
  /** The apps that are on, for the core and for reading their bodies. */
  readonly on: readonly AppMount<never>[];
}

/** The bridge to `mounts` as `settings` turn them on, each loaded by its first request (a failed load tried again). */
export function appBridge(mounts: readonly AppMount<AppSettings>[], settings: AppSettings): AppBridge {
  const table: AppTable = appTable(mounts, settings);
  const bridge: AnswerApp = async (request, response, body, handOff, index, rateLimit, origin) => {
    const limit = table.mountOf(handOff.app).maxBodyBytes;
    const made = () => webRequest(request, body, limit, origin);
    const answer = await table.answer(handOff, request.method ?? 'GET', made, index);
    return writeAnswer(request, response, answer, rateLimit);
  };
  return Object.assign(bridge, { on: table.on });
}

/**
 * Starts reading the body of a request to an app, bounded at its `maxBodyBytes`; resolves at its
 * end, or once it is over the bound. A body over it is read no further, and whatever answers the
 * request (the 413, or a 401 or 429 before it) closes the connection, which cannot carry another
 * request.
 */
export function readBody(request: IncomingMessage, response: ServerResponse, limit: number): PendingBody {
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

/**
 * A Web Request of a node:http request and its body as read (a body over `limit` declared so,
 * unread), its URL on `origin`: the one the request came to (publicOrigin in public-origin.ts).
 */
async function webRequest(
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
  // An app's method, as a Request spells it (the bridge let no other through).
  const method = (request.method ?? 'GET').toUpperCase();
  const read = method === 'GET' || method === 'HEAD' ? undefined : await body;
  // Over the bound: declared so, and the app refuses it by its length without reading.
  if (read === 'too large') headers.set('content-length', String(limit + 1));
  const url = `${origin}${request.url ?? '/'}`;
  return new Request(URL.canParse(url) ? url : `${origin}/`, {
    method,
    headers,
    body: read instanceof Buffer ? new Uint8Array(read) : undefined,
  });
}

/** Writes a Web Response (with the request's RateLimit, if any); the number of body bytes sent, for the log. */
async function writeAnswer(
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
