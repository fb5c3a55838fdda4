// `npm run worker`: the Worker in workerd through wrangler's programmatic API (its DevEnv, what
// `wrangler dev` runs), locally and offline (wrangler-local.ts), in front of the existing dist/.
// Honours PORT (8787), HOST (127.0.0.1), API_TOKENS and API_TOKEN_SHA256; with no token
// configured it makes one up, as the Node server does. With API_RATE_LIMIT it runs with
// Cloudflare's rate limiting binding, which wrangler simulates. Clients reach it through a small
// front on PORT that sets CF-Connecting-IP from the socket, as Cloudflare's edge does; wrangler
// listens behind it on a port of loopback the system picks. With BODIES=r2 it runs the R2 mode
// (docs/deploy.md): the API's files in wrangler's local R2, seeded from dist/ with what it lacks
// (and the bundles past R2_DOWNLOADS_ABOVE), the static assets without them, and the Worker run
// first only for the routes that need it. The tokens go to wrangler in memory, and from it to
// workerd on a pipe: never on a command line or in a file.
import '../cli/node-check.ts';
import { Agent, createServer, request as forwardRequest, type Server } from 'node:http';
import { devNull } from 'node:os';
import { join } from 'node:path';
import { projectDir } from '../cli/project-dir.ts';
import type { unstable_startWorker } from 'wrangler';
import { RATE_LIMIT_BINDING } from '../contract/bindings.ts';
import { projectVersion } from '../cli/project-version.ts';
import { type CommandSpec, runMain } from '../cli/command-line.ts';
import { INVOCATIONS_PATH, INVOCATIONS_VARIABLE } from '../contract/bucket-layout.ts';
import { RATE_LIMIT_VARIABLE, type RateLimit } from '../schema/environment.ts';
import { appVariables } from '../apps/mounts.ts';

/** The Worker's variable of the Discord app's public key. */
import { madeUpTokenNotice } from '../server/local-tokens.ts';
import {
  type BodiesMode,
  DEFAULT_BUCKET,
  settingsFromEnvironment,
  type WorkerDevSettings,
  workerDevVariables,
} from '../server/settings.ts';
import { assetsWithoutApi, bucketPlan } from './bucket-objects.ts';
import { r2RunConfig, seedBucket, WORKER_ROUTES } from './r2-run.ts';
import { exitOnSignals } from './temporary-folder.ts';
import { keepWranglerLocal } from './wrangler-local.ts';

export interface WorkerOptions {
  port: number;
  host?: string;
  /** Plaintext tokens (API_TOKENS). */
  tokens?: readonly string[];
  /** Lowercase hex SHA-256 digests of tokens (API_TOKEN_SHA256). */
  tokenSha256?: readonly string[];
  /** The built site to serve instead of wrangler.toml's assets directory (dist/). */
  assetsDir?: string;
  /** Print wrangler's warnings and errors (the CLI does; tests don't). */
  echo?: boolean;
  /** Another Worker: the folder of its wrangler.toml (the project's by default). */
  cwd?: string;
  /** More variables for the Worker's env. */
  vars?: Record<string, string>;
  /** API_RATE_LIMIT: the Worker runs with Cloudflare's rate limiting binding, which wrangler simulates. */
  rateLimit?: RateLimit | undefined;
  /** BODIES: where the API's files are, the static assets (the default) or R2. */
  bodies?: BodiesMode;
  /** Count the Worker's invocations, told at INVOCATIONS_PATH (tests of what runs the Worker). */
  countInvocations?: boolean;
  /** The R2 mode's local storage (.wrangler/state): kept between runs, so a run seeds only what it lacks. */
  persistDir?: string;
  /** The R2 mode (R2_DOWNLOADS_ABOVE): bundles larger than this many bytes are served from R2. */
  downloadsAbove?: number;
  /** The R2 mode (R2_BUCKET): the local bucket's name (DEFAULT_BUCKET), the one `npm run deploy -- --local` fills. */
  bucket?: string;
}

/** A Worker wrangler runs: its address (once ready), its disposal. */
type WranglerWorker = Awaited<ReturnType<typeof unstable_startWorker>>;

export interface RunningWorker {
  url: string;
  close(): Promise<void>;
}

/** A binding of the Worker's env as wrangler's API takes it: a variable, a secret, the rate limiter. */
type WorkerBinding =
  | { type: 'plain_text' | 'secret_text'; value: string }
  | { type: 'ratelimit'; namespace_id: string; simple: { limit: number; period: number } };

/** The Worker's env besides wrangler.toml's: the extra variables, the tokens (as secrets) and the rate limit. */
function workerBindings(options: WorkerOptions): Record<string, WorkerBinding> {
  const bindings: Record<string, WorkerBinding> = {};
  const text = (value: string) => ({ type: 'plain_text', value }) as const;
  for (const [name, value] of Object.entries(options.vars ?? {})) bindings[name] = text(value);
  if (options.tokens?.length) bindings.API_TOKENS = { type: 'secret_text', value: options.tokens.join(',') };
  if (options.tokenSha256?.length)
    bindings.API_TOKEN_SHA256 = { type: 'secret_text', value: options.tokenSha256.join(',') };
  if (options.countInvocations) bindings[INVOCATIONS_VARIABLE] = text('on');
  const limit = options.rateLimit;
  if (limit) {
    bindings[RATE_LIMIT_VARIABLE] = text(`${limit.requests}/${limit.seconds}s`);
    // A namespace of the account's; wrangler's simulation keeps the count by it.
    const simple = { limit: limit.requests, period: limit.seconds };
    bindings[RATE_LIMIT_BINDING] = { type: 'ratelimit', namespace_id: '1001', simple };
  }
  return bindings;
}

/**
 * Headers about one connection, not the request (RFC 9110, 7.6.1): never passed on.
 * Transfer-Encoding is, as node:http frames a message by it (a chunked body stays chunked).
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'upgrade', 'trailer']);

/** A raw header list (name, value, name, value, ...) without hop-by-hop headers and those named in `drop`. */
function passedOn(rawHeaders: readonly string[], drop?: string): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    const lower = name.toLowerCase();
    if (!HOP_BY_HOP.has(lower) && lower !== drop) kept.push(name, rawHeaders[index + 1] ?? '');
  }
  return kept;
}

/** What Cloudflare puts in CF-Connecting-IP for a socket's address: an IPv4 client as IPv4, not IPv4-mapped. */
const connectingIp = (socketAddress: string | undefined): string =>
  (socketAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/**
 * The front of the local Worker, as Cloudflare's edge is of a deployed one: every request goes
 * on to wrangler on `upstreamPort` with CF-Connecting-IP set to its socket's address, whatever
 * the client sent. wrangler alone sets it only when missing, so a client could name any
 * address, and be counted as a new one by the rate limit with each request.
 */
function connectingIpFront(upstreamPort: number): Server {
  const agent = new Agent({ keepAlive: true });
  const front = createServer((request, response) => {
    const headers = passedOn(request.rawHeaders, 'cf-connecting-ip');
    headers.push('CF-Connecting-IP', connectingIp(request.socket.remoteAddress));
    const target = { host: '127.0.0.1', port: upstreamPort, method: request.method, path: request.url, headers, agent };
    const upstream = forwardRequest(target, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, passedOn(answer.rawHeaders));
      answer.pipe(response);
    });
    upstream.on('error', () => {
      if (response.headersSent) response.destroy();
      else
        response
          .writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('the local Worker did not answer\n');
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  front.once('close', () => agent.destroy());
  return front;
}

/** Starts the front on `host`:`port`; rejects if it cannot listen there (the port is taken). */
function listenFront(front: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, () => {
      front.off('error', reject);
      resolve();
    });
  });
}

/** What a run hands wrangler besides the bindings: its config and assets, and its files' removal. */
interface RunFiles {
  config: string;
  /** The assets when not the config's own (the R2 mode's config names them). */
  assets: string | undefined;
  /** The R2 mode: wrangler's local state, seeded. */
  persist: string | undefined;
  remove(): void;
}

/**
 * The config of a run: the project's wrangler.toml as it is, or in the R2 mode a config of the
 * run's own (r2-run.ts) with the assets without the API, and the local R2 seeded with what it
 * lacks. `remove` removes the temporary files.
 */
async function runFiles(options: WorkerOptions): Promise<RunFiles> {
  const configDir = options.cwd ?? projectDir;
  if (options.bodies !== 'r2')
    return { config: join(configDir, 'wrangler.toml'), assets: options.assetsDir, persist: undefined, remove() {} };
  const servedDir = options.assetsDir ?? join(projectDir, 'dist');
  const plan = bucketPlan(servedDir, options.downloadsAbove);
  const staged = assetsWithoutApi(servedDir, plan);
  let config: { path: string; remove(): void } | undefined;
  const remove = () => {
    config?.remove();
    staged.remove();
  };
  try {
    config = await r2RunConfig(configDir, {
      assetsDir: staged.dir,
      bucket: { name: options.bucket ?? DEFAULT_BUCKET, remote: false },
      indexId: plan.indexId,
      workerRoutes: [...WORKER_ROUTES, ...(options.countInvocations ? [INVOCATIONS_PATH] : [])],
    });
    const persist = options.persistDir ?? join(projectDir, '.wrangler', 'state');
    await seedBucket(config.path, persist, plan);
    return { config: config.path, assets: undefined, persist, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Why wrangler could not start the Worker, from what it gave: an error (the cause it wraps, when
 * it wraps one), or an event with a cause.
 */
function failureOf(given: unknown): Error {
  const wrapped = given instanceof Error ? given.cause : (given as { cause?: unknown }).cause;
  const cause = wrapped instanceof Error || !(given instanceof Error) ? wrapped : given;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new Error(`wrangler could not start the Worker: ${reason}`, { cause });
}

/**
 * Starts the Worker in workerd through wrangler's DevEnv: resolves once it is loaded (wrangler's
 * `reloadComplete`), rejects with the reason when its config or build fails.
 */
async function startInWorkerd(options: WorkerOptions, run: RunFiles): Promise<WranglerWorker> {
  const { unstable_DevEnv } = await import('wrangler');
  const devEnv = new unstable_DevEnv();
  const loaded = new Promise<void>((resolve, reject) => {
    devEnv.once('reloadComplete', () => resolve());
    devEnv.once('buildFailed', (event: unknown) => reject(failureOf(event)));
    devEnv.once('error', (event: unknown) => reject(failureOf(event)));
  });
  // Awaited below once the Worker is started; if starting throws first, its failure is that one.
  loaded.catch(() => undefined);
  const worker = await devEnv
    .startWorker({
      config: run.config,
      ...(run.assets === undefined ? {} : { assets: run.assets }),
      bindings: workerBindings(options),
      // Given an env file, wrangler reads no .dev.vars: the Worker's env is these bindings and the config's [vars].
      envFiles: [devNull],
      sendMetrics: false,
      dev: {
        // Port 0: the system picks a free one, which `worker.url` tells; only the front is reached by clients.
        server: { hostname: '127.0.0.1', port: 0 },
        inspector: false,
        watch: false,
        logLevel: options.echo ? 'warn' : 'none',
        ...(run.persist === undefined ? {} : { persist: run.persist }),
      },
    })
    .catch((error: unknown) => {
      // wrangler has disposed of what it started.
      throw failureOf(error);
    });
  await loaded.catch(async (error: unknown) => {
    // Tears everything down; it rethrows wrangler's own error for what never got ready: ours names why.
    await worker.dispose().catch(() => undefined);
    throw error;
  });
  return worker;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  keepWranglerLocal();
  const host = options.host ?? '127.0.0.1';
  const run = await runFiles(options);
  const worker = await startInWorkerd(options, run).catch((error: unknown) => {
    run.remove();
    throw error;
  });
  const front = connectingIpFront(Number((await worker.url).port));
  // Closing stops workerd and waits for it (wrangler's dispose); this process's exit stops it too.
  const close = () => {
    front.close();
    front.closeAllConnections();
    return worker.dispose().finally(run.remove);
  };
  // Clients are let in once the Worker is loaded, through the front alone.
  await listenFront(front, options.port, host).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { url: `http://${host}:${options.port}`, close };
}

/** What `npm run worker` runs for its settings (its environment: settings.ts). */
export function workerOptionsFrom(settings: WorkerDevSettings): WorkerOptions {
  const { port, host, tokens, tokenSha256, rateLimit, bodies, downloadsAbove, bucket } = settings;
  // The apps' settings (the Discord app's public key) are no secrets: plain variables of the
  // Worker's, as on Cloudflare.
  const given = Object.entries(appVariables).flatMap(([key, { name }]) => {
    const value = settings[key as keyof typeof appVariables];
    return value === undefined ? [] : [[name, value] as const];
  });
  const vars = given.length === 0 ? {} : { vars: Object.fromEntries(given) };
  return { port, host, tokens, tokenSha256, rateLimit, bodies, downloadsAbove, bucket, ...vars };
}

const workerCommand: CommandSpec = {
  command: 'npm run worker',
  summary:
    'Runs the Cloudflare Worker locally with wrangler and workerd, over the existing dist/, until Ctrl-C: the ' +
    'wiki and the API as Cloudflare would serve them.',
  options: {},
  variables: workerDevVariables,
  examples: ['API_TOKENS=dev-token BODIES=r2 npm run worker'],
  version: () => projectVersion(),
  failure: 'Cannot start',
};

if (import.meta.main) {
  // Ctrl-C or SIGTERM, before the Worker is up or after: an exit, whose handlers stop workerd
  // (wrangler's) and remove the run's temporary folders.
  exitOnSignals();
  await runMain(workerCommand, async () => {
    try {
      const settings = settingsFromEnvironment(process.env, workerDevVariables);
      const worker = await startWorker({ ...workerOptionsFrom(settings), echo: true });
      console.log(`Worker (workerd, local): ${worker.url}/`);
      if (settings.bodies === 'r2')
        console.log(
          `  R2 mode: the API (and bundles past R2_DOWNLOADS_ABOVE) in the local R2 bucket "${settings.bucket}" ` +
            '(.wrangler/state), the Worker run only for /api, /mcp, /healthz and the bundles.',
        );
      console.log(
        "CF-Connecting-IP: set from each request's socket address, as Cloudflare sets it; a client's own is replaced.",
      );
      if (settings.madeUpToken) console.log(madeUpTokenNotice(worker.url, settings.madeUpToken));
      return 0;
    } catch (error) {
      console.error(`Cannot start: ${(error as Error).message}`);
      return 1;
    }
  });
}
