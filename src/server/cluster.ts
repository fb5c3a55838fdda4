// WORKERS > 1: a supervisor process forks that many serving processes sharing one port
// (node:cluster hands them the connections), restarts one that dies (restart-policy.ts), and
// passes SIGHUP, SIGTERM and SIGINT on. Each process holds the whole verified build, as one
// would alone.
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { loadBodyStore } from './body-store.ts';
import { countForServingProcesses } from './rate-ipc.ts';
import { afterDeath, RESTART_POLICY } from './restart-policy.ts';
import { printBanner, type ServeSettings } from './settings.ts';

interface ListeningAddress {
  address: string;
  port: number;
  addressType: number | string;
}

/** Forks `settings.workers` serving processes; resolves with the URL once all listen. */
function forkAll(settings: ServeSettings, fork: () => void, workers: ReadonlySet<Worker>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let listening = 0;
    const onListening = (_worker: Worker, address: ListeningAddress) => {
      if (++listening < settings.workers) return;
      cluster.off('listening', onListening);
      cluster.off('exit', onEarlyExit);
      const ipv6 = address.addressType === 6 || address.addressType === 'udp6';
      resolve(`http://${ipv6 ? `[${address.address}]` : address.address}:${address.port}`);
    };
    const onEarlyExit = (_worker: Worker, code: number | null) => {
      for (const worker of workers) worker.process.kill('SIGTERM');
      reject(new Error(`a serving process exited with ${code} before it was listening`));
    };
    cluster.on('listening', onListening);
    cluster.on('exit', onEarlyExit);
    for (let index = 0; index < settings.workers; index++) fork();
  });
}

/** Once running: restarts by the policy, passes signals on, and stops when all processes have. */
function superviseRunning(workers: Set<Worker>, fork: () => void): void {
  let stopping = false;
  let deaths: number[] = [];
  const stop = (signal: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests in ${workers.size} processes, then stopping.`);
    if (workers.size === 0) process.exit(exitCode);
    for (const worker of workers) worker.process.kill('SIGTERM');
    cluster.on('exit', () => {
      if (workers.size === 0) process.exit(exitCode);
    });
  };
  cluster.on('exit', (worker, code, signal) => {
    workers.delete(worker);
    if (stopping) return;
    console.error(`Serving process ${worker.process.pid} died (${signal ?? `exit ${code}`}).`);
    const next = afterDeath(deaths, Date.now());
    deaths = next.recentDeaths;
    if (next.action === 'restart') fork();
    else {
      console.error(`${deaths.length} deaths in ${RESTART_POLICY.windowMs / 1000} s: stopping.`);
      stop('Too many deaths', 1);
    }
  });
  process.on('SIGHUP', () => {
    for (const worker of workers) worker.process.kill('SIGHUP');
  });
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
}

export async function supervise(settings: ServeSettings): Promise<void> {
  // Verify the build once here, so a damaged dist/ is refused before any process starts.
  const { manifest } = await loadBodyStore(settings.distDir);
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./serve.ts', import.meta.url)) });
  // Every process serves the same tokens, including a token made up for this run.
  const env = {
    API_TOKENS: settings.tokens.join(','),
    API_TOKEN_SHA256: settings.tokenSha256.join(','),
    DIST_DIR: settings.distDir,
    PORT: String(settings.port),
    HOST: settings.host,
    API_RATE_LIMIT: settings.rateLimit ? `${settings.rateLimit.requests}/${settings.rateLimit.seconds}s` : '',
    ACCESS_LOG: settings.accessLog ? 'on' : 'off',
  };
  // One count for every process, so a token gets its limit once across the server.
  if (settings.rateLimit) countForServingProcesses(settings.rateLimit);
  const workers = new Set<Worker>();
  const fork = () => workers.add(cluster.fork(env));
  const url = await forkAll(settings, fork, workers);
  printBanner(settings, url, manifest);
  superviseRunning(workers, fork);
}
