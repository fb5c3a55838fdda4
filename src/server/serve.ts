// `npm run serve`: serve the existing dist/ (wiki and API) until SIGTERM or SIGINT.
// PORT (4321), HOST (127.0.0.1), API_TOKENS and API_TOKEN_SHA256 come from the environment;
// WORKERS (1) processes share the port, to use more cores; DIST_DIR serves another build
// folder than dist/ (the reliability tests use copies); API_RATE_LIMIT limits each token;
// ACCESS_LOG=off turns the access log (a JSON line per request on stdout) off.
import cluster from 'node:cluster';
import { startServer } from './app.ts';
import { accessLog } from './access-log.ts';
import { supervisorRateCounter } from './rate-ipc.ts';
import { describeBuild, printBanner, settingsFromEnvironment, type ServeSettings } from './settings.ts';
import { supervise } from './cluster.ts';

/** One serving process: the whole server, or one of several under the supervisor. */
async function serveInThisProcess(settings: ServeSettings): Promise<void> {
  const running = await startServer({
    ...settings,
    // Under the supervisor, it holds the count for every process (rate-ipc.ts).
    ...(settings.rateLimit && cluster.isWorker ? { rateCounter: supervisorRateCounter() } : {}),
    accessLog: settings.accessLog ? accessLog() : undefined,
  });
  const name = cluster.isWorker ? `process ${process.pid}: ` : '';
  if (cluster.isPrimary) printBanner(settings, running.url, running.manifest());

  process.on('SIGHUP', () => {
    running.reload().then(
      (manifest) => console.log(`${name}Reloaded: ${describeBuild(manifest)}`),
      (error: unknown) =>
        console.error(`${name}Reload refused, still serving the previous build: ${(error as Error).message}`),
    );
  });
  let stopping = false;
  const stop = (signal: string) => {
    // A second signal (Ctrl-C reaches the whole process group) must not cut the drain short.
    if (stopping) return;
    stopping = true;
    if (cluster.isPrimary) console.log(`${signal}: finishing in-flight requests, then stopping.`);
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

export async function serve(settings = settingsFromEnvironment()): Promise<void> {
  if (settings.workers > 1 && cluster.isPrimary) await supervise(settings);
  else await serveInThisProcess(settings);
}

if (import.meta.main) {
  serve().catch((error: unknown) => {
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
