// Slow and abusive clients against the local server (serve.ts in its own process): each limit
// of LIMITS answers as documented in docs/limits.md, and while the abuse goes on, normal
// requests are answered and the server's memory stays bounded (their latency is printed, and
// BENCHMARKS.md "Slow clients and faults" quotes it).
import { Agent, get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { listRoute } from '../../src/contract/paths.ts';
import { routeBytes } from '../support/dist-routes.ts';
import { LIMITS } from '../../src/server/limits.ts';
import { parseResponses, rawRequest, requestBytes } from '../support/http.ts';
import { residentBytes, startServe, type RunningServeChild } from '../support/serve-child.ts';

const TOKEN = 'slow-clients-token';
/** The biggest API body: the one a client that never reads makes the server hold. */
const BIGGEST = { target: '/api/trees', bytes: routeBytes(listRoute('trees')).length };
/** Latency of normal requests may grow by this much under abuse (generous: 2 shared cores). */

let server: RunningServeChild;
let origin: { host: string; port: number };
beforeAll(async () => {
  server = await startServe({ tokens: [TOKEN] });
  origin = { host: '127.0.0.1', port: Number(new URL(server.url).port) };
});
afterAll(() => server.stop('SIGKILL'));

/** Per-request times (ms) of `count` ordinary requests, one after another on one kept-alive connection. */
async function latencies(count: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const targets = [
    '/api/trees?search=Oak%20Tree',
    '/api/cutters',
    '/api/gifts?search=1',
    '/api/vehicles?search=nothing',
  ];
  const times: number[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        const request = get(
          { ...origin, agent, path: targets[index % targets.length], headers: { Authorization: `Bearer ${TOKEN}` } },
          (response) => {
            response.resume();
            response.once('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.once('error', reject);
      });
      times.push(performance.now() - started);
      expect(status).toBeLessThan(500);
    }
  } finally {
    agent.destroy();
  }
  return times;
}

function p99(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1] ?? Infinity;
}

/** Opens a connection and resolves once it is up. */
function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(origin, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends on `socket` until it closes the connection. */
function received(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks))));
}

/** A connection that sends a request line and then one header byte every `everyMs`, never finishing. */
async function slowloris(everyMs: number): Promise<{ socket: Socket; answer: Promise<Buffer>; stop(): void }> {
  const socket = await open();
  const answer = received(socket);
  socket.write(`GET /api/trees HTTP/1.1\r\nHost: localhost\r\nX-Slow: `);
  const timer = setInterval(() => socket.writable && socket.write('a'), everyMs);
  void answer.then(() => clearInterval(timer));
  return {
    socket,
    answer,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

/**
 * A paused connection that has asked for the biggest body `times` times in one write (pipelined;
 * the last asks to close).
 */
async function neverReads(times: number): Promise<Socket> {
  const socket = await open();
  socket.on('error', () => {});
  socket.pause();
  const request = (connection: string) =>
    requestBytes('localhost', {
      target: BIGGEST.target,
      headers: [
        ['Authorization', `Bearer ${TOKEN}`],
        ['Accept-Encoding', 'identity'],
        ['Connection', connection],
      ],
    });
  socket.write(Buffer.concat([...Array.from({ length: times - 1 }, () => request('keep-alive')), request('close')]));
  return socket;
}

/** Streams a chunked request body in 16 KiB chunks until the server closes; resolves with the bytes sent. */
async function streamBody(limitBytes: number): Promise<number> {
  const socket = await open();
  const closed = received(socket);
  socket.write(
    `GET /api/trees HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n',
  );
  const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
  let sent = 0;
  let connected = true;
  void closed.then(() => (connected = false));
  while (connected && sent < limitBytes) {
    socket.write(chunk);
    sent += 0x4000;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  socket.destroy();
  return sent;
}

test('headers larger than maxHeaderBytes get 431', async () => {
  const response = await rawRequest(server.url, {
    target: '/api/trees',
    headers: [['X-Padding', 'a'.repeat(LIMITS.maxHeaderBytes)]],
  });
  expect(response.status).toBe(431);
});

test('a URL longer than maxHeaderBytes gets 431', async () => {
  const response = await rawRequest(server.url, { target: `/api/trees?search=${'a'.repeat(LIMITS.maxHeaderBytes)}` });
  expect(response.status).toBe(431);
});

test('a body declared larger than maxBodyBytes gets 413 before it is sent', async () => {
  const socket = await open();
  const answer = received(socket);
  socket.write(
    `GET /api/trees HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Length: ${LIMITS.maxBodyBytes * 1000}\r\n\r\n`,
  );
  expect(parseResponses(await answer)[0]?.status).toBe(413);
});

test('a streamed body past maxBodyBytes gets its connection closed', async () => {
  const sent = await streamBody(LIMITS.maxBodyBytes * 64);
  expect(sent).toBeLessThan(LIMITS.maxBodyBytes * 64);
});

/** The head of a POST /mcp with the token, its body `length` bytes long as declared. */
const mcpHead = (length: number) =>
  `POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n` +
  `Accept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: ${length}\r\n\r\n`;
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'suggest', arguments: { kind: 'trees', text: 'oa' } },
});

test('a /mcp body declared over its bound (16 KiB) gets the JSON-RPC 413 before it is sent', async () => {
  const socket = await open();
  const answer = received(socket);
  socket.write(mcpHead(20_000));
  const [response] = parseResponses(await answer);
  expect(response?.status).toBe(413);
  expect(JSON.parse(response?.body.toString('utf8') ?? '')).toMatchObject({
    jsonrpc: '2.0',
    error: { message: 'The body is over 16384 bytes: send one short JSON-RPC message.' },
  });
});

test('a /mcp body sent a few bytes at a time is answered once whole, while other clients are answered', async () => {
  const socket = await open();
  const answer = received(socket);
  socket.write(mcpHead(Buffer.byteLength(MCP_CALL)));
  for (let at = 0; at < MCP_CALL.length; at += 8) {
    socket.write(MCP_CALL.slice(at, at + 8));
    // Another client meanwhile: the trickling body holds up no one.
    if (at === 64) expect(await latencies(4)).toHaveLength(4);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const [response] = parseResponses(await answer);
  expect(response?.status).toBe(200);
  expect(JSON.parse(response?.body.toString('utf8') ?? '')).toMatchObject({
    id: 7,
    result: {
      structuredContent: { suggestions: expect.arrayContaining([expect.objectContaining({ name: 'Oak Tree' })]) },
    },
  });
});

test(
  'a /mcp body that stops midway is answered 408 and closed after requestTimeoutMs',
  async () => {
    const socket = await open();
    const answer = received(socket);
    socket.write(mcpHead(Buffer.byteLength(MCP_CALL)) + MCP_CALL.slice(0, 20));
    const [response] = parseResponses(await answer);
    expect(response?.status).toBe(408);
  },
  LIMITS.requestTimeoutMs + 20_000,
);

test('a client may pipeline maxQueuedResponses requests and gets every response', async () => {
  const socket = await neverReads(LIMITS.maxQueuedResponses);
  const answer = received(socket);
  socket.resume();
  const statuses = parseResponses(await answer).map((response) => response.status);
  expect(statuses).toEqual(Array.from({ length: LIMITS.maxQueuedResponses }, () => 200));
});

test('a client that reads its answers may pipeline 100 requests and gets all 100', async () => {
  const socket = await neverReads(100);
  const answer = received(socket);
  socket.resume();
  const statuses = parseResponses(await answer).map((response) => response.status);
  expect(statuses).toEqual(Array.from({ length: 100 }, () => 200));
});

test('a client pipelining over maxQueuedResponses requests unread is disconnected, its backlog dropped', async () => {
  const socket = await neverReads(LIMITS.maxQueuedResponses * 10);
  const answer = received(socket);
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.resume();
  const bytes = await answer;
  expect(bytes.length).toBeLessThan(LIMITS.maxQueuedResponses * 10 * BIGGEST.bytes);
});

test(
  'a connection that never finishes its headers (slowloris) is answered 408 and closed after headersTimeoutMs',
  async () => {
    const started = performance.now();
    const connections = await Promise.all(Array.from({ length: 20 }, () => slowloris(500)));
    const answers = await Promise.all(connections.map((connection) => connection.answer));
    const elapsed = performance.now() - started;
    for (const answer of answers) expect(parseResponses(answer)[0]?.status).toBe(408);
    expect(elapsed).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 100);
    expect(elapsed).toBeLessThan(LIMITS.headersTimeoutMs + 5_000);
  },
  LIMITS.headersTimeoutMs + 20_000,
);

test('under slow, oversized and never-reading clients, ordinary requests are answered, memory bounded', async () => {
  await latencies(50); // warm-up
  const baseline = p99(await latencies(400));
  const rssBefore = await residentBytes(server.child.pid!);

  const slow = await Promise.all(Array.from({ length: 300 }, () => slowloris(1_000)));
  const nonReaders = await Promise.all(Array.from({ length: 20 }, () => neverReads(500)));
  let abusing = true;
  const oversized = (async () => {
    while (abusing)
      await rawRequest(server.url, {
        target: '/api/trees',
        headers: [['X-Padding', 'a'.repeat(LIMITS.maxHeaderBytes)]],
      });
  })();
  const bodies = Promise.all(Array.from({ length: 4 }, () => streamBody(LIMITS.maxBodyBytes * 16)));
  await new Promise((resolve) => setTimeout(resolve, 500));

  const underAbuse = p99(await latencies(400));
  const rssGrowth = (await residentBytes(server.child.pid!)) - rssBefore;
  abusing = false;
  await Promise.all([oversized, bodies]);
  for (const connection of slow) connection.stop();
  for (const socket of nonReaders) socket.destroy();

  console.log(
    `p99 latency: ${baseline.toFixed(1)} ms alone, ${underAbuse.toFixed(1)} ms under abuse; ` +
      `server RSS +${(rssGrowth / 2 ** 20).toFixed(1)} MiB while 20 clients each ask for the ` +
      `${BIGGEST.bytes}-byte body 500 times and never read`,
  );
  // The latencies are printed, not asserted: a loaded machine moves them more than any abuse does here.
  // Buffering every unread body would take ~350 MiB (20 × 500 × 36 KiB); what remains is garbage of dropped requests.
  expect(rssGrowth).toBeLessThan(128 * 2 ** 20);
}, 60_000);
