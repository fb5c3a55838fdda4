// `npm run bench:mcp`: what a `find_record` tool call costs beside the equivalent GET
// (/api/trees?search=giant%20sequoia), in each protocol era (2025-11-25 after an initialize,
// 2026-07-28 with its envelope in `_meta`), one run over the built dist/.
//
// 1. Node, in-process, CPU: process.cpuUsage() around `--calls` answers made by the server's own
//    code without a socket: the GET as the edge core decides it and the body store hands over its
//    bytes; the tool call as src/apps/mcp/answer.ts answers a Web Request (a fresh MCP server and
//    transport, the JSON-RPC parse, the resolver, the JSON of the answer). Warm: each is run
//    `--calls` times first. BENCH_COMPARE=<dir> adds the tool call of another checkout (its own
//    src/ and dist/, e.g. main's) in the same process, the two interleaved for BENCH_ROUNDS (5)
//    rounds, medians: a before and after in one run on a loaded machine.
// 2. Node server and workerd (wrangler dev), wall latency over loopback: `--calls` sequential
//    warm requests of each, median and p99. A request is handled by one thread, one at a time
//    here, so a Worker's wall time on the machine bounds its CPU time from above: this is how
//    far inside the Free plan's 10 ms of CPU per request a warm tool call is (Cloudflare's own
//    CPU time is only shown once deployed).
import '../src/cli/node-check.ts';
import { cpuPerCall, inProcessGet } from './lib/in-process.ts';
import { projectDir } from '../src/cli/project-dir.ts';
import { answerMcp } from '../src/apps/mcp/answer.ts';
import { startServer } from '../src/server/http-server.ts';
import { startWorker } from '../src/cloudflare/worker-dev.ts';
import { join } from 'node:path';
import { freePort } from '../test/support/runtimes.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';
import type { loadBodyStore } from '../src/server/body-store.ts';

const { values } = await commandLine({
  command: 'npm run bench:mcp',
  summary:
    'What an MCP find_record tool call costs beside the equivalent GET, over the built dist/: in-process ' +
    'CPU, and over HTTP in Node and in the Worker. Reads BENCH_COMPARE (another checkout, for a before and after ' +
    'in one run) and BENCH_ROUNDS.',
  options: {
    calls: { type: 'string', default: '2000', value: '<n>', wholeNumber: true, description: 'calls of each kind' },
    'skip-worker': { type: 'boolean', default: false, description: 'measure Node only' },
  },
  variables: {},
  examples: ['npm run bench:mcp -- --calls 2000', 'BENCH_COMPARE=../main npm run bench:mcp -- --skip-worker'],
  version: () => projectVersion(),
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
  'Mcp-Protocol-Version': '2025-11-25',
};
/** The same call as a 2026-07-28 client sends it: the version and client in `_meta`, method and name in headers. */
const MODERN_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'find_record',
    arguments: { kind: 'trees', query: SEARCH },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const MODERN_HEADERS = {
  ...MCP_HEADERS,
  'Mcp-Protocol-Version': '2026-07-28',
  'Mcp-Method': 'tools/call',
  'Mcp-Name': 'find_record',
};
/** Each era's call: its body and headers. */
const ERAS = { '2025-11-25': [TOOL_CALL, MCP_HEADERS], '2026-07-28': [MODERN_CALL, MODERN_HEADERS] } as const;

async function inProcess(era: keyof typeof ERAS): Promise<{ get: number; tool: number }> {
  const [body, headers] = ERAS[era];
  const { store, core, request, get: answerGet } = await inProcessGet(GET_TARGET, TOKEN);
  const get = await cpuPerCall(CALLS, answerGet);
  const handOff = await core({ ...request, method: 'POST', pathname: '/mcp', query: '' });
  if (handOff.type !== 'app' || handOff.app !== 'mcp')
    throw new Error(`POST /mcp was not handed to the MCP server: ${handOff.type}`);
  const tool = await cpuPerCall(CALLS, async () => {
    const response = await answerMcp(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body }),
      store.index,
      handOff.headers,
    );
    if (response.status !== 200) throw new Error(`the ${era} tool call answered ${response.status}`);
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
  const modern = await latency(() =>
    fetch(`${origin}/mcp`, { method: 'POST', headers: MODERN_HEADERS, body: MODERN_CALL }),
  );
  return { get, tool, modern };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const line = (label: string, { get, tool, modern }: Awaited<ReturnType<typeof overHttp>>) =>
  `${label}: GET median ${ms(get.median)} (p99 ${ms(get.p99)}); find_record 2025-11-25 median ` +
  `${ms(tool.median)} (p99 ${ms(tool.p99)}), 2026-07-28 median ${ms(modern.median)} (p99 ${ms(modern.p99)})`;

/** The tool call's CPU per call here and in BENCH_COMPARE's checkout, interleaved for BENCH_ROUNDS rounds: medians. */
async function compared(era: keyof typeof ERAS, other: string) {
  const [body, headers] = ERAS[era];
  const { store, core, request } = await inProcessGet(GET_TARGET, TOKEN);
  const handOff = await core({ ...request, method: 'POST', pathname: '/mcp', query: '' });
  if (handOff.type !== 'app') throw new Error(`POST /mcp was not handed to an app: ${handOff.type}`);
  const theirs = (await import(join(other, 'src/apps/mcp/answer.ts'))) as { answerMcp: typeof answerMcp };
  const theirStore = await (
    (await import(join(other, 'src/server/body-store.ts'))) as { loadBodyStore: typeof loadBodyStore }
  ).loadBodyStore(join(other, 'dist'));
  const call = (answer: typeof answerMcp, index: typeof store.index) => async () => {
    const response = await answer(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body }),
      index,
      handOff.headers,
    );
    if (response.status !== 200) throw new Error(`the ${era} tool call answered ${response.status}`);
    return response.text();
  };
  const ours: number[] = [];
  const before: number[] = [];
  // Each goes first in every other round: neither gains from the other's warming up.
  for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 5); round++) {
    const pair = [
      async () => ours.push(await cpuPerCall(CALLS, call(answerMcp, store.index))),
      async () => before.push(await cpuPerCall(CALLS, call(theirs.answerMcp, theirStore.index))),
    ];
    for (const measure of round % 2 === 0 ? pair : pair.toReversed()) await measure();
  }
  const median = (all: number[]) => all.toSorted((a, b) => a - b)[Math.floor(all.length / 2)] ?? Number.NaN;
  return { ours: median(ours), theirs: median(before) };
}

const COMPARE_DIR = process.env.BENCH_COMPARE;
if (COMPARE_DIR)
  for (const era of Object.keys(ERAS) as (keyof typeof ERAS)[]) {
    const { ours, theirs } = await compared(era, COMPARE_DIR);
    console.log(
      `find_record CPU per call, ${era}, medians of rounds: this checkout ${ours.toFixed(1)} µs, ` +
        `${COMPARE_DIR} ${theirs.toFixed(1)} µs (${(ours / theirs).toFixed(2)}x)`,
    );
  }
for (const era of Object.keys(ERAS) as (keyof typeof ERAS)[]) {
  const cpu = await inProcess(era);
  console.log(
    `Node in-process CPU per call (${CALLS} warm calls), ${era}: GET ${cpu.get.toFixed(1)} µs; ` +
      `find_record ${cpu.tool.toFixed(1)} µs (${(cpu.tool / cpu.get).toFixed(1)}x)`,
  );
}
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
