// `npm run bench:mcp`: what a `find_record` tool call costs beside the equivalent GET
// (/api/trees?search=giant%20sequoia), one run over the built dist/.
//
// 1. Node, in-process, CPU: process.cpuUsage() around `--calls` answers made by the server's own
//    code without a socket: the GET as the edge core decides it and the body store hands over its
//    bytes; the tool call as src/edge/mcp.ts answers a Web Request (a fresh MCP server and
//    transport, the JSON-RPC parse, the resolver, the JSON of the answer). Warm: each is run
//    `--calls` times first.
// 2. Node server and workerd (wrangler dev), wall latency over loopback: `--calls` sequential
//    warm requests of each, median and p99. A request is handled by one thread, one at a time
//    here, so a Worker's wall time on the machine bounds its CPU time from above: this is how
//    far inside the Free plan's 10 ms of CPU per request a warm tool call is (Cloudflare's own
//    CPU time is only shown once deployed).
import { parseArgs } from 'node:util';
import { cpuPerCall, inProcessGet } from './lib/in-process.ts';
import { projectDir } from '../src/build/site.ts';
import { answerMcp } from '../src/edge/mcp.ts';
import { startServer } from '../src/server/app.ts';
import { startWorker } from '../src/cloudflare/worker-dev.ts';
import { join } from 'node:path';
import { freePort } from '../test/support/runtimes.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    'skip-worker': { type: 'boolean', default: false },
  },
});
const CALLS = Number(values.calls);
const TOKEN = 'bench-mcp-token';
const SEARCH = 'giant sequoia';
const GET_TARGET = `/api/trees?search=${encodeURIComponent(SEARCH)}`;
const TOOL_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'find_record', arguments: { kind: 'trees', query: SEARCH } },
});
const MCP_HEADERS = {
  Authorization: `Bearer ${TOKEN}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'Mcp-Protocol-Version': '2025-06-18',
};

async function inProcess(): Promise<{ get: number; tool: number }> {
  const { store, core, request, get: answerGet } = await inProcessGet(GET_TARGET, TOKEN);
  const get = await cpuPerCall(CALLS, answerGet);
  const handOff = await core({ ...request, method: 'POST', pathname: '/mcp', query: '' });
  if (handOff.type !== 'app' || handOff.app !== 'mcp')
    throw new Error(`POST /mcp was not handed to the MCP server: ${handOff.type}`);
  const tool = await cpuPerCall(CALLS, async () => {
    const response = await answerMcp(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: MCP_HEADERS, body: TOOL_CALL }),
      store.index,
      handOff.headers,
    );
    return response.text();
  });
  return { get, tool };
}

/** Median and p99 of `CALLS` sequential requests (ms), after as many to warm up. */
async function latency(send: () => Promise<Response>): Promise<{ median: number; p99: number }> {
  const times: number[] = [];
  for (let round = 0; round < 2; round++) {
    times.length = 0;
    for (let call = 0; call < CALLS; call++) {
      const started = performance.now();
      const response = await send();
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${response.url} answered ${response.status}`);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)] ?? NaN, p99: times[Math.ceil(times.length * 0.99) - 1] ?? NaN };
}

async function overHttp(origin: string) {
  const get = await latency(() => fetch(`${origin}${GET_TARGET}`, { headers: { Authorization: `Bearer ${TOKEN}` } }));
  const tool = await latency(() => fetch(`${origin}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: TOOL_CALL }));
  return { get, tool };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const line = (label: string, { get, tool }: Awaited<ReturnType<typeof overHttp>>) =>
  `${label}: GET median ${ms(get.median)} (p99 ${ms(get.p99)}); find_record median ${ms(tool.median)} ` +
  `(p99 ${ms(tool.p99)})`;

const cpu = await inProcess();
console.log(
  `Node in-process CPU per call (${CALLS} warm calls): GET ${cpu.get.toFixed(1)} µs; ` +
    `find_record ${cpu.tool.toFixed(1)} µs (${(cpu.tool / cpu.get).toFixed(1)}x)`,
);
const server = await startServer({ distDir: join(projectDir, 'dist'), tokens: [TOKEN] });
try {
  console.log(line('Node server over loopback', await overHttp(server.url)));
} finally {
  await server.close(0);
}
if (!values['skip-worker']) {
  const worker = await startWorker({ port: await freePort(), tokens: [TOKEN] });
  try {
    console.log(line('workerd (wrangler dev) over loopback', await overHttp(worker.url)));
  } finally {
    await worker.close();
  }
}
