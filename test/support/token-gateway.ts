// A gateway in this process that forwards every request to a runtime with the API's token
// added, as a proxy holding the credential would: for a client that sends none of its own
// (the MCP conformance suite's, test/mcp/conformance.test.ts). All else passes as it came.
import { createServer, request } from 'node:http';

export interface TokenGateway {
  /** Origin, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port) and forwards to `origin`, `Authorization: Bearer <token>` added. */
export async function tokenGateway(origin: string, token: string): Promise<TokenGateway> {
  const target = new URL(origin);
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: `Bearer ${token}` };
    const forwarded = request(
      { hostname: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.once('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the gateway has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
