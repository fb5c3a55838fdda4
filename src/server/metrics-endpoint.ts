// `/metrics` for the whole server (METRICS, docs/running.md#metrics): the supervisor listens on
// an address of its own, never the API's port, so nothing reaches it that the operator did not
// put there. A scrape asks every serving process for its metrics over the cluster's IPC channel
// (metrics.ts), adds the supervisor's own (serving processes, restarts, its process metrics) and
// joins them with prom-client's cluster aggregation: one server's figures, however many processes
// serve. The path is /metrics whatever the query string (a scraper's parameters are ignored).
import type { Worker as ServingProcess } from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import type { MetricsAddress } from '../schema/environment.ts';
import { type MetricJson, type MetricsAnswer, type MetricsRequest, ownProcessMetrics } from './metrics.ts';

/** How long a scrape waits for a serving process; one that does not answer is left out of that scrape. */
const ANSWER_WAIT_MS = 2_000;
export const METRICS_PATH = '/metrics';

export interface MetricsEndpoint {
  /** `http://host:port/metrics`. */
  url: string;
  /** Counts a serving process started in place of one that died. */
  restarted(): void;
}

const isMetricsAnswer = (message: unknown): message is MetricsAnswer =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'metrics';

/**
 * Asks processes for their metrics: the answers that came within ANSWER_WAIT_MS. One 'message'
 * listener a process, whatever the scrapes in flight (a listener a scrape passed Node's ten and
 * printed MaxListenersExceededWarning), each answer found by its id.
 */
function processAsker(): (processes: Iterable<ServingProcess>) => Promise<MetricJson[][]> {
  let lastId = 0;
  const waiting = new Map<number, (metrics: MetricJson[]) => void>();
  const listening = new WeakSet<ServingProcess>();
  const onMessage = (message: unknown) => {
    if (isMetricsAnswer(message)) waiting.get(message.id)?.(message.metrics);
  };
  const ask = (serving: ServingProcess) =>
    new Promise<MetricJson[]>((resolve) => {
      const id = ++lastId;
      const done = (metrics: MetricJson[]) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(metrics);
      };
      const timer = setTimeout(() => done([]), ANSWER_WAIT_MS);
      waiting.set(id, done);
      if (!listening.has(serving)) {
        listening.add(serving);
        serving.on('message', onMessage);
      }
      serving.send({ type: 'metrics-request', id } satisfies MetricsRequest);
    });
  return (processes) => Promise.all([...processes].filter((serving) => serving.isConnected()).map(ask));
}

/** The supervisor's own metrics: the processes serving now, and how many were started in place of one that died. */
function supervisorRegistry(processes: () => ReadonlySet<ServingProcess>) {
  const registry = new Registry();
  new Gauge({
    name: 'treefarm_serving_processes',
    help: 'Serving processes running now.',
    registers: [registry],
    collect() {
      this.set(processes().size);
    },
  });
  const restarts = new Counter({
    name: 'treefarm_serving_process_restarts_total',
    help: 'Serving processes started in place of one that died.',
    registers: [registry],
  });
  return { registry, restarts };
}

/** Listens on `address` and answers `/metrics` with the whole server's metrics. */
export async function serveMetrics(
  address: MetricsAddress,
  processes: () => ReadonlySet<ServingProcess>,
): Promise<MetricsEndpoint> {
  const { registry, restarts } = supervisorRegistry(processes);
  const askProcesses = processAsker();
  const supervisorProcess = ownProcessMetrics('supervisor');
  const scrape = async () => {
    const answers = await askProcesses(processes());
    return AggregatorRegistry.aggregate([...answers, await registry.getMetricsAsJSON(), await supervisorProcess()]);
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const plain = { 'Content-Type': 'text/plain; charset=utf-8' };
    const path = request.url?.split('?', 1)[0];
    if (path !== METRICS_PATH) response.writeHead(404, plain).end(`Not found: metrics are at ${METRICS_PATH}\n`);
    else if (request.method !== 'GET' && request.method !== 'HEAD')
      response.writeHead(405, { ...plain, Allow: 'GET, HEAD' }).end('Method not allowed\n');
    else
      scrape()
        .then(async (aggregated) => {
          const text = await aggregated.metrics();
          response.writeHead(200, { 'Content-Type': aggregated.contentType, 'Cache-Control': 'no-store' });
          response.end(request.method === 'HEAD' ? undefined : text);
        })
        .catch((error: unknown) => response.writeHead(500, plain).end(`Metrics failed: ${(error as Error).message}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`METRICS: cannot listen on ${address.host}:${address.port} (${error.code ?? error.message})`)),
    );
    server.listen(address.port, address.host, resolve);
  });
  // The supervisor exits when its processes have: this listener keeps nothing alive.
  server.unref();
  const { address: host, family, port } = server.address() as AddressInfo;
  return {
    url: `http://${family === 'IPv6' ? `[${host}]` : host}:${port}${METRICS_PATH}`,
    restarted: () => restarts.inc(),
  };
}
