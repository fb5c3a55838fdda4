// `npm run worker`: the Worker in workerd through `wrangler dev`, locally and offline, in
// front of the existing dist/. Honours PORT (8787), HOST (127.0.0.1), API_TOKENS and
// API_TOKEN_SHA256; with no token configured it makes one up, as the Node server does. With
// API_RATE_LIMIT it runs with Cloudflare's rate limiting binding, which wrangler simulates.
// Clients reach it through a small front on PORT that sets CF-Connecting-IP from the socket,
// as Cloudflare's edge does; wrangler itself listens on a free port of loopback behind it.
// With BODIES=r2 it runs the R2 mode (docs/deploy.md): the API's files in wrangler's local R2,
// seeded from dist/ with what it lacks (and the bundles past R2_DOWNLOADS_ABOVE), the static
// assets without them, and the Worker run first only for the routes that need it.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as forwardRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discordVariables, RATE_LIMIT_VARIABLE, type RateLimit } from '../schema/environment.ts';
import { createRequire } from 'node:module';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUCKET_BINDING, INDEX_VARIABLE, INVOCATIONS_PATH, INVOCATIONS_VARIABLE } from '../contract/bucket-layout.ts';
import { BUNDLE_NAME, DOWNLOADS_DIR } from '../contract/bundle-layout.ts';
import { DISCORD_PATH, MCP_PATH } from '../contract/paths.ts';
import {
  assetsWithoutApi,
  type BucketPlan,
  bucketPlan,
  type UploadCount,
  uploadMissing,
  type WritableBucket,
} from './bucket-objects.ts';
import { madeUpTokenNotice } from './local-tokens.ts';
import { temporaryFolder } from './temporary-folder.ts';
import {
  type BodiesMode,
  DEFAULT_BUCKET,
  settingsFromEnvironment,
  type WorkerDevSettings,
  workerDevVariables,
} from './settings.ts';

const projectDir = fileURLToPath(new URL('../../', import.meta.url));
const requireHere = createRequire(import.meta.url);
const wranglerManifest = requireHere.resolve('wrangler/package.json');
/** wrangler's command line, run with node. Its package exports no path to it: its package.json's bin names it. */
export const wranglerBin = join(
  dirname(wranglerManifest),
  (requireHere(wranglerManifest) as { bin: { wrangler: string } }).bin.wrangler,
);

export interface WorkerOptions {
  port: number;
  host?: string;
  /** Plaintext tokens (API_TOKENS). */
  tokens?: readonly string[];
  /** Lowercase hex SHA-256 digests of tokens (API_TOKEN_SHA256). */
  tokenSha256?: readonly string[];
  /** The built site to serve instead of wrangler.toml's assets directory (dist/). */
  assetsDir?: string;
  /** Print wrangler's output (the CLI does; tests don't). */
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
  /** The R2 mode's local storage (wrangler's --persist-to): kept between runs, so a run seeds only what it lacks. */
  persistDir?: string;
  /** The R2 mode (R2_DOWNLOADS_ABOVE): bundles larger than this many bytes are served from R2. */
  downloadsAbove?: number;
  /** The R2 mode (R2_BUCKET): the local bucket's name (DEFAULT_BUCKET), the one `npm run deploy -- --local` fills. */
  bucket?: string;
}

/**
 * The routes that run the Worker in the R2 mode: those that need the core, and the offline
 * bundles (served from R2 or the assets, with ranges alike); all else is static.
 */
export const WORKER_ROUTES = [
  '/api',
  '/api/*',
  MCP_PATH,
  DISCORD_PATH,
  '/healthz',
  `/${DOWNLOADS_DIR}/${BUNDLE_NAME}-*`,
];
/** The R2 bucket of a run: its name, and whether it is Cloudflare's (a deploy) or wrangler's local simulation. */
export interface BucketPlace {
  name: string;
  remote: boolean;
}

/** The binding's name in the Worker (src/worker/worker.ts reads it so). */
const RATE_LIMIT_BINDING = 'API_RATE_LIMITER';

/**
 * The line of a wrangler.toml that sets up the R2 mode by hand (its routes, bucket binding or
 * API_INDEX), which BODIES=r2 adds to each run's config itself: with it, a run's config would
 * bind the bucket twice or name another deploy's index.
 */
function handMadeR2Line(project: string): string | undefined {
  const settings = [
    /^run_worker_first *=(?! *true *$).*$/m,
    new RegExp(`^binding *= *"${BUCKET_BINDING}".*$`, 'm'),
    new RegExp(`^${INDEX_VARIABLE} *=.*$`, 'm'),
  ];
  return settings.map((setting) => setting.exec(project)?.[0]).find((line) => line !== undefined);
}

/**
 * A wrangler config for this run: the project's wrangler.toml with its paths made absolute and
 * the rate limiting binding or the R2 mode's bucket and routes added, in a temporary folder
 * removed when the run closes. The R2 mode needs wrangler.toml as shipped, in the assets-only
 * mode: one set up for the R2 mode by hand is refused, naming the line.
 */
export function runConfig(
  configDir: string,
  rateLimit: RateLimit | undefined,
  workerRoutes: readonly string[] | undefined,
  bucket: BucketPlace = { name: DEFAULT_BUCKET, remote: false },
): { path: string; remove(): void } {
  const absolute = (key: string) => (text: string) =>
    text.replace(
      new RegExp(`^${key} = "(.*)"$`, 'm'),
      (_line, path: string) => `${key} = ${JSON.stringify(resolvePath(configDir, path))}`,
    );
  const project = readFileSync(join(configDir, 'wrangler.toml'), 'utf8');
  let config = absolute('directory')(absolute('main')(project));
  if (rateLimit)
    config += `
[[ratelimits]]
name = "${RATE_LIMIT_BINDING}"
namespace_id = "1001"
simple = { limit = ${rateLimit.requests}, period = ${rateLimit.seconds} }
`;
  if (workerRoutes) {
    const handMade = handMadeR2Line(project);
    const routed = config.replace(/^run_worker_first = true$/m, `run_worker_first = ${JSON.stringify(workerRoutes)}`);
    const wrong = handMade ? `sets up the R2 mode by hand (${handMade})` : 'has no "run_worker_first = true"';
    if (handMade !== undefined || routed === config)
      throw new Error(
        `wrangler.toml in ${configDir} ${wrong}: ` +
          "BODIES=r2 adds the R2 mode's routes, bucket and API_INDEX to each run's config itself, so keep " +
          'wrangler.toml in the assets-only mode, as shipped (run_worker_first = true, no API_BUCKET, no API_INDEX)',
      );
    config = `${routed}
[[r2_buckets]]
binding = "${BUCKET_BINDING}"
bucket_name = ${JSON.stringify(bucket.name)}
${bucket.remote ? 'remote = true\n' : ''}`;
  }
  const folder = temporaryFolder('treefarm-worker-');
  const path = join(folder.path, 'wrangler.toml');
  writeFileSync(path, config);
  return { path, remove: folder.remove };
}

export interface RunningWorker {
  url: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/**
 * The Worker's variables as a file for wrangler's --env-file (dotenv): on its command line
 * they would show in every local user's `ps`. The file is the current user's alone (0600 in
 * a 0700 folder); the returned function removes it. Values are single-quoted, `$` escaped
 * (wrangler expands variables); one it cannot quote is refused, naming the variable.
 */
export function writeEnvFile(vars: Record<string, string>): { path: string; remove(): void } {
  const lines = Object.entries(vars).map(([name, value]) => {
    if (/['\\\r\n]/.test(value))
      throw new Error(`${name} holds a quote, backslash or line break, which cannot be passed to wrangler`);
    return `${name}='${value.replaceAll('$', '\\$')}'\n`;
  });
  const folder = temporaryFolder('treefarm-worker-');
  const path = join(folder.path, 'worker.env');
  writeFileSync(path, lines.join(''), { mode: 0o600 });
  return { path, remove: folder.remove };
}

/** How long wrangler may take to stop after SIGTERM before its group is killed. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Closes a process started as a group leader: SIGTERM to the group, SIGKILL to what is left
 * once the leader exits (or after the grace period); this process's exit kills the group too.
 */
function groupCloser(child: ChildProcess): () => Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group has ended already.
    }
  };
  const killOnExit = () => signalGroup('SIGKILL');
  process.once('exit', killOnExit);
  return () =>
    new Promise<void>((resolve) => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) {
        signalGroup('SIGKILL');
        return resolve();
      }
      const stubborn = setTimeout(() => signalGroup('SIGKILL'), CLOSE_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(stubborn);
        // What the CLI left behind (workerd) goes with it.
        signalGroup('SIGKILL');
        resolve();
      });
      signalGroup('SIGTERM');
    });
}

/** The Worker's env: the extra variables and the token lists. */
function workerVars(options: WorkerOptions, bucket: BucketPlan | undefined): Record<string, string> {
  const vars: Record<string, string> = { ...options.vars };
  if (options.tokens?.length) vars.API_TOKENS = options.tokens.join(',');
  if (options.tokenSha256?.length) vars.API_TOKEN_SHA256 = options.tokenSha256.join(',');
  if (options.rateLimit) vars[RATE_LIMIT_VARIABLE] = `${options.rateLimit.requests}/${options.rateLimit.seconds}s`;
  if (bucket) vars[INDEX_VARIABLE] = bucket.indexId;
  if (options.countInvocations) vars[INVOCATIONS_VARIABLE] = 'on';
  return vars;
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
        response.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' }).end('wrangler dev did not answer\n');
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  front.once('close', () => agent.destroy());
  return front;
}

/** A port free on loopback now, for wrangler behind the front (and its devtools). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
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

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const host = options.host ?? '127.0.0.1';
  const upstreamPort = await freeLoopbackPort();
  // wrangler's devtools port is 9229 unless given: two Workers at once (a test suite's files in
  // parallel, a second `npm run worker`) would refuse to start on it.
  const inspectorPort = await freeLoopbackPort();
  const args = [
    wranglerBin,
    'dev',
    '--port',
    String(upstreamPort),
    '--ip',
    '127.0.0.1',
    '--inspector-port',
    String(inspectorPort),
    '--log-level',
    'warn',
    '--show-interactive-dev-session=false',
  ];
  const run = await runFiles(options);
  args.push(...run.args);
  // wrangler runs as a process group of its own (its CLI, esbuild, workerd): closing ends the
  // whole group, and so does this process's exit, so no workerd outlives the run that started it.
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? projectDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: process.env.CI ?? '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const url = `http://${host}:${options.port}`;
  const closeGroup = groupCloser(child);
  const front = connectingIpFront(upstreamPort);
  // wrangler reads the files once at start; removed when it stops (or when this process exits).
  const close = () => {
    front.close();
    front.closeAllConnections();
    return closeGroup().finally(run.remove);
  };
  await whenReady(child, `http://127.0.0.1:${upstreamPort}`, close, options.echo);
  // Clients are let in once wrangler answers, through the front alone.
  await listenFront(front, options.port, host).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { url, process: child, close };
}

/**
 * The files a run hands wrangler, as its arguments: the env file, the config when the run
 * differs from wrangler.toml, and in the R2 mode the assets without the API and the local R2,
 * seeded with what it lacks. `remove` removes the temporary ones.
 */
async function runFiles(options: WorkerOptions): Promise<{ args: string[]; remove(): void }> {
  const r2 = options.bodies === 'r2';
  const servedDir = options.assetsDir ?? join(projectDir, 'dist');
  const plan = r2 ? bucketPlan(servedDir, options.downloadsAbove) : undefined;
  const staged = plan && assetsWithoutApi(servedDir, plan);
  const envFile = writeEnvFile(workerVars(options, plan));
  const workerRoutes = r2 ? [...WORKER_ROUTES, ...(options.countInvocations ? [INVOCATIONS_PATH] : [])] : undefined;
  const config =
    options.rateLimit || r2
      ? runConfig(options.cwd ?? projectDir, options.rateLimit, workerRoutes, {
          name: options.bucket ?? DEFAULT_BUCKET,
          remote: false,
        })
      : undefined;
  const remove = () => {
    envFile.remove();
    config?.remove();
    staged?.remove();
  };
  // wrangler merges --assets into the [assets] of wrangler.toml: binding and routing stay as configured.
  const assets = staged?.dir ?? options.assetsDir;
  // Given an env file, wrangler reads neither .dev.vars nor .env: the Worker sees these alone.
  const args = [...(assets ? ['--assets', assets] : []), '--env-file', envFile.path];
  if (config) args.push('--config', config.path);
  if (plan && config) {
    const persistDir = options.persistDir ?? join(projectDir, '.wrangler', 'state');
    args.push('--persist-to', persistDir);
    await seedLocalBucket(config.path, persistDir, plan).catch((error: unknown) => {
      remove();
      throw error;
    });
  }
  return { args, remove };
}

/**
 * wrangler could not start what reaches the bucket (the session with Cloudflare for a remote
 * bucket: not logged in, no network; or its local simulation): the bucket itself was not read.
 */
export class BucketUnreachable extends Error {
  override name = 'BucketUnreachable';
  constructor(remote: boolean, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      remote
        ? `wrangler could not open its session with Cloudflare (${reason}): check the login ` +
            '(npx wrangler login, or CLOUDFLARE_API_TOKEN) and the network'
        : `wrangler could not start its local simulation (${reason})`,
      { cause },
    );
  }
}

/**
 * A dry run's view of wrangler's local state in `persistDir`: a copy of its R2 simulation in a
 * temporary folder, since the simulation writes to what it opens (and creates it when missing).
 */
function copyOfLocalBucket(persistDir: string): { path: string; remove(): void } {
  const copy = temporaryFolder('treefarm-bucket-');
  const r2 = join(persistDir, 'v3', 'r2');
  if (existsSync(r2)) cpSync(r2, join(copy.path, 'v3', 'r2'), { recursive: true });
  return copy;
}

/**
 * Puts into the bucket of `configPath` the objects of the build it lacks, through wrangler's
 * binding: wrangler's local R2 in `persistDir` (the folder `wrangler dev --persist-to` reads),
 * or with no `persistDir` the remote bucket the config marks `remote`; an object it holds with
 * other bytes is put again. With `dryRun`, counts them and puts none, and writes nothing to
 * `persistDir`. Returns how many. A BucketUnreachable when wrangler cannot reach the bucket.
 */
export async function seedLocalBucket(
  configPath: string,
  persistDir: string | undefined,
  plan: BucketPlan,
  dryRun = false,
): Promise<UploadCount> {
  const copy = dryRun && persistDir !== undefined ? copyOfLocalBucket(persistDir) : undefined;
  const stateDir = copy?.path ?? persistDir;
  const { getPlatformProxy } = await import('wrangler');
  try {
    const proxy = await getPlatformProxy<Record<string, WritableBucket>>({
      configPath,
      ...(stateDir === undefined ? {} : { persist: { path: join(stateDir, 'v3') } }),
      envFiles: [],
      remoteBindings: stateDir === undefined,
    }).catch((error: unknown) => {
      throw new BucketUnreachable(stateDir === undefined, error);
    });
    try {
      const bucket = proxy.env[BUCKET_BINDING];
      if (!bucket) throw new Error(`the ${BUCKET_BINDING} binding is missing from ${configPath}`);
      return await uploadMissing(bucket, plan, dryRun);
    } finally {
      await proxy.dispose();
    }
  } finally {
    copy?.remove();
  }
}

/** Resolves once the Worker answers on `url`; rejects with wrangler's output if it exits or takes over 60 s. */
function whenReady(child: ChildProcess, url: string, close: () => Promise<void>, echo = false) {
  return new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      if (echo) process.stdout.write(chunk);
      output += chunk.toString();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      // Stopped before it was ready (or closed after): what it left behind goes too.
      void close();
      reject(new Error(`wrangler dev exited with ${code}:\n${output}`));
    });
    // Ready when the Worker answers; wrangler's own "Ready" line comes before workerd is.
    const started = Date.now();
    const poll = async () => {
      try {
        await fetch(`${url}/api/trees`, { method: 'OPTIONS' });
        resolve();
      } catch {
        if (Date.now() - started > 60_000) {
          await close();
          reject(new Error(`wrangler dev did not answer on ${url} within 60 s:\n${output}`));
        } else setTimeout(poll, 250);
      }
    };
    void poll();
  });
}

/** What `npm run worker` runs for its settings (its environment: settings.ts). */
/** The Worker's variable of the Discord app's public key. */
const DISCORD_PUBLIC_KEY = discordVariables.discordPublicKey.name;

export function workerOptionsFrom(settings: WorkerDevSettings): WorkerOptions {
  const { port, host, tokens, tokenSha256, rateLimit, bodies, downloadsAbove, bucket, discordPublicKey } = settings;
  const vars = discordPublicKey === undefined ? {} : { vars: { [DISCORD_PUBLIC_KEY]: discordPublicKey } };
  return { port, host, tokens, tokenSha256, rateLimit, bodies, downloadsAbove, bucket, ...vars };
}

if (import.meta.main) {
  let settings: WorkerDevSettings;
  try {
    settings = settingsFromEnvironment(process.env, workerDevVariables);
  } catch (error) {
    console.error(`Cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
  // Signals are handled from the start: dying by a signal's default action would skip the exit
  // handlers that end wrangler's process group and remove the run's files. Stopping before the
  // Worker is up is an exit, which does both; after, a close, then an exit. Each signal is
  // listened to, not once: Ctrl-C under npm delivers SIGINT twice (the terminal's, npm's forward).
  let worker: RunningWorker | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void (worker?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  worker = await startWorker({ ...workerOptionsFrom(settings), echo: true });
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
}
