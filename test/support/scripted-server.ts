// A small HTTP server that fails on purpose, for the client's network behaviour: each
// request gets the next step of a script (an answer, a hang, a dropped connection), and
// the server records what it was sent.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Step =
  | { status: number; body?: string; headers?: Record<string, string> }
  /** Never answers (until the server closes). */
  | 'hang'
  /** Closes the connection without an answer. */
  | 'drop';

export interface ScriptedServer {
  url: string;
  /** What each request asked for, in order. */
  requests: { url: string; headers: IncomingHttpHeaders }[];
  /** Resolves once the server has been sent `count` requests: a signal to act on, not a clock. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export const jsonAnswer = (status: number, body: object, headers: Record<string, string> = {}): Step => ({
  status,
  body: JSON.stringify(body),
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
});

/** Answers request n with script[n]; past its end, with the last step again. */
export async function scriptedServer(script: readonly Step[]): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const sockets = new Set<Socket>();
  const waiting = new Set<{ count: number; resolve: () => void }>();
  const server = createServer((request, response) => {
    const step = script[Math.min(requests.length, script.length - 1)] ?? 'drop';
    requests.push({ url: request.url ?? '', headers: request.headers });
    for (const waiter of waiting)
      if (requests.length >= waiter.count) {
        waiting.delete(waiter);
        waiter.resolve();
      }
    if (step === 'hang') return;
    if (step === 'drop') return void request.socket.destroy();
    response.writeHead(step.status, step.headers).end(step.body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    received: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.add({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
