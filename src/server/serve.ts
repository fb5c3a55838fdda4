// `npm run serve`: serve the existing dist/ (wiki and API) until SIGTERM or SIGINT.
// PORT (4321), HOST (127.0.0.1), API_TOKENS and API_TOKEN_SHA256 come from the environment;
// WORKERS (1) processes share the port, to use more cores, under a supervisor that restarts
// one that dies (cluster.ts); DIST_DIR serves another build folder than dist/ (the
// reliability tests use copies); API_RATE_LIMIT limits each token; ACCESS_LOG=off turns the
// access log (a JSON line per request on stdout) off; TRUST_PROXY (and TRUST_PROXY_HEADER) names
// the proxies in front, whose forwarded client address is believed (docs/deploy.md).
import '../cli/node-check.ts';
import cluster from 'node:cluster';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';
import { supervise, type ServingMessage } from './cluster.ts';
import { answerMetricsRequests, RequestTally } from './metrics.ts';
import { supervisorRateCounter } from './rate-ipc.ts';
import { describeBuild, settingsFromEnvironment, type ServeSettings, serveVariables } from './settings.ts';
import { stderrLines } from './stderr.ts';

/** One serving process under the supervisor (or alone, as bench:instructions runs it). */
export async function serveInThisProcess(settings: ServeSettings): Promise<void> {
  // Loaded here, not above: the supervisor never serves, so it never loads the server (the edge, the schemas).
  const [{ startServer }, { accessLog }] = await Promise.all([import('./http-server.ts'), import('./access-log.ts')]);
  const { rateLimit } = settings;
  const log = settings.accessLog ? accessLog() : undefined;
  const tally = settings.metrics ? new RequestTally() : undefined;
  const running = await startServer({
    ...settings,
    // One process counts alone (the server's default); several ask the supervisor, which holds
    // one count for all, and count alone while it does not answer in time (rate-ipc.ts).
    ...(rateLimit && settings.processes > 1 ? { rateCounter: supervisorRateCounter(rateLimit) } : {}),
    accessLog: log,
    tally,
  });
  if (tally)
    answerMetricsRequests(tally, () => ({
      logLinesDropped: log?.droppedTotal ?? 0,
      stderrLinesDropped: stderrLines.droppedTotal,
      dataVersion: running.manifest().version,
    }));
  const { version, counts } = running.manifest();
  process.send?.({ type: 'serving', url: running.url, build: { version, counts } } satisfies ServingMessage);
  const name = settings.processes > 1 ? `process ${process.pid}: ` : '';

  process.on('SIGHUP', () => {
    running.reload().then(
      (manifest) => console.log(`${name}Reloaded: ${describeBuild(manifest)}`),
      (error: unknown) =>
        stderrLines.say(`${name}Reload refused, still serving the previous build: ${(error as Error).message}`),
    );
  });
  let stopping = false;
  const stop = () => {
    // A second signal (Ctrl-C reaches the whole process group) must not cut the drain short.
    if (stopping) return;
    stopping = true;
    void running.close().then(() => {
      // The lines of the last requests, from the log's thread, before the process ends.
      log?.flushSync();
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * A reader of stdout that went away (`npm start | head`) makes every later write fail with
 * EPIPE: the banner and reload lines are then lost, but the server keeps serving.
 */
function keepServingWithoutStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

export async function serve(settings = settingsFromEnvironment()): Promise<void> {
  keepServingWithoutStdout();
  if (cluster.isPrimary) await supervise(settings);
  else await serveInThisProcess(settings);
}

/** Why the server did not start, in one line: a port in use says which variable moves it. */
export function startFailure(error: unknown): string {
  const { code, port, address } = error as NodeJS.ErrnoException & { port?: number; address?: string };
  if (code === 'EADDRINUSE')
    return (
      `port ${port ?? '(PORT)'} on ${address ?? 'HOST'} is in use (EADDRINUSE): stop what holds it, ` +
      'or set PORT to another port (PORT=0: any free one)'
    );
  return error instanceof Error ? error.message : String(error);
}

export const serveCommand: CommandSpec = {
  command: 'npm run serve',
  summary:
    'Serves the existing dist/ (the wiki and the API) until SIGTERM or SIGINT; SIGHUP reloads a new build. ' +
    '`npm start` builds dist/ first when it is stale.',
  options: {},
  variables: serveVariables,
  examples: ['PORT=8080 WORKERS=4 API_TOKEN_SHA256=ops:<sha256> npm run serve'],
  version: () => projectVersion(),
  failure: 'Cannot start',
};

if (import.meta.main) {
  await runMain(serveCommand, async () => {
    try {
      await serve();
      return 0;
    } catch (error) {
      console.error(`Cannot start: ${startFailure(error)}`);
      return 1;
    }
  });
}
