// The supervisor: `npm start` and `npm run serve` fork WORKERS (1 by default) serving processes
// sharing one listening socket (each accepts its own connections), restart one that dies
// (restart-policy.ts) and say so, and pass SIGHUP, SIGTERM and SIGINT on. Each process holds
// the whole verified build, as one would alone; the supervisor holds none of it, so it costs
// a process's start and little memory.
import cluster, { type Worker as ServingProcess } from 'node:cluster';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type MetricsEndpoint, serveMetrics } from './metrics-endpoint.ts';
import { countForServingProcesses } from './rate-ipc.ts';
import { afterDeath, RESTART_POLICY } from './restart-policy.ts';
import { type BuildSummary, printBanner, type ServeSettings } from './settings.ts';
import { stderrLines } from './stderr.ts';

/** What a serving process tells the supervisor once it serves. */
export interface ServingMessage {
  type: 'serving';
  url: string;
  build: BuildSummary;
}

function isServingMessage(message: unknown): message is ServingMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'serving';
}

/**
 * The port to share: PORT itself, or for PORT=0 a free port chosen now, so a process started
 * in place of a dead one takes the same port even when none was left holding it.
 */
async function sharedPort(settings: ServeSettings): Promise<number> {
  if (settings.port !== 0) return settings.port;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, settings.host, resolve);
  });
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error(`no free port on ${settings.host}`);
  return address.port;
}

/** Forks `settings.processes` serving processes; resolves with what the first says once all serve. */
function forkAll(
  settings: ServeSettings,
  fork: () => void,
  processes: ReadonlySet<ServingProcess>,
): Promise<ServingMessage> {
  return new Promise((resolve, reject) => {
    let servingCount = 0;
    const onMessage = (_process: ServingProcess, message: unknown) => {
      if (!isServingMessage(message) || ++servingCount < settings.processes) return;
      cluster.off('message', onMessage);
      cluster.off('exit', onEarlyExit);
      resolve(message);
    };
    const onEarlyExit = (_process: ServingProcess, code: number | null) => {
      for (const started of processes) started.process.kill('SIGTERM');
      // The process said why (a damaged build, a port in use) on the output it shares.
      reject(new Error(`a serving process exited with ${code} before it was serving`));
    };
    cluster.on('message', onMessage);
    cluster.on('exit', onEarlyExit);
    for (let index = 0; index < settings.processes; index++) fork();
  });
}

/** Once running: restarts by the policy, passes signals on, and stops when all processes have. */
function superviseRunning(processes: Set<ServingProcess>, fork: () => void, metrics?: MetricsEndpoint): void {
  let stopping = false;
  let deaths: number[] = [];
  const stop = (signal: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const which = processes.size === 1 ? 'its serving process' : `${processes.size} serving processes`;
    console.log(`${signal}: finishing in-flight requests in ${which}, then stopping.`);
    if (processes.size === 0) process.exit(exitCode);
    for (const serving of processes) serving.process.kill('SIGTERM');
    cluster.on('exit', () => {
      if (processes.size === 0) process.exit(exitCode);
    });
  };
  cluster.on('exit', (serving, code, signal) => {
    processes.delete(serving);
    if (stopping) return;
    const next = afterDeath(deaths, Date.now());
    deaths = next.recentDeaths;
    const died = `Serving process ${serving.process.pid} died (${signal ?? `exit ${code}`})`;
    if (next.action === 'restart') {
      stderrLines.say(`${died}: starting another in its place.`);
      metrics?.restarted();
      fork();
    } else {
      stderrLines.say(`${died}; ${deaths.length} deaths in ${RESTART_POLICY.windowMs / 1000} s: stopping.`);
      stop('Too many deaths', 1);
    }
  });
  cluster.on('message', (serving, message: unknown) => {
    if (isServingMessage(message)) stderrLines.say(`Serving process ${serving.process.pid} serving again.`);
  });
  process.on('SIGHUP', () => {
    for (const serving of processes) serving.process.kill('SIGHUP');
  });
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
}

export async function supervise(settings: ServeSettings): Promise<void> {
  // Each serving process accepts its connections itself from the one listening socket, none
  // through here (Node's round-robin, its default off Windows, hands each one over from the
  // supervisor): a supervisor stopped or blocked on a paused terminal holds up no client. It
  // only hands the socket over as a process starts. The kernel wakes a process waiting to
  // accept, so a busy one takes fewer; Node's docs warn the share can be uneven. (Listening
  // with reusePort, which Linux spreads evenly, works on Linux and a few BSDs only.)
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./serve.ts', import.meta.url)) });
  const port = await sharedPort(settings);
  // Never beside the API: whoever reaches the API would reach the metrics.
  if (settings.metrics?.port === port)
    throw new Error(`METRICS: port ${port} is the API's own (PORT); metrics need a port of their own`);
  // Every process serves the same tokens, including a token made up for this run.
  const env = {
    API_TOKENS: settings.tokens.join(','),
    API_TOKEN_SHA256: settings.tokenSha256.join(','),
    DIST_DIR: settings.distDir,
    PORT: String(port),
    HOST: settings.host,
    API_RATE_LIMIT: settings.rateLimit ? `${settings.rateLimit.requests}/${settings.rateLimit.seconds}s` : '',
    ACCESS_LOG: settings.accessLog ? 'on' : 'off',
  };
  // One count for every process, so a token gets its limit once across the server.
  if (settings.rateLimit && settings.processes > 1) countForServingProcesses(settings.rateLimit);
  const processes = new Set<ServingProcess>();
  // Listening before any process starts: a METRICS address in use stops the server at once.
  const metrics = settings.metrics && (await serveMetrics(settings.metrics, () => processes));
  const fork = () => processes.add(cluster.fork(env));
  const first = await forkAll(settings, fork, processes);
  printBanner(settings, first.url, first.build);
  if (metrics) console.log(`  Metrics: ${metrics.url}`);
  superviseRunning(processes, fork, metrics);
}
