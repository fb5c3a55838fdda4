// Starts the API in each runtime against the built dist/, so one suite can assert the
// contract of each: the Node server in-process, the Worker in workerd (wrangler's API) with the
// API in its static assets, and the Worker in its R2 mode (the API in wrangler's local R2).
import { closedRuntime, trackUnclosed } from './unclosed-runtimes.ts';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { startWorker } from '../../src/cloudflare/worker-dev.ts';
import { startServer } from '../../src/server/http-server.ts';
import type { RateLimit } from '../../src/schema/environment.ts';
import type { ForwardingHeader } from '../../src/edge/forwarded.ts';
import { trustedProxies } from '../../src/edge/trusted-proxies.ts';
import { temporaryFolder } from './temporary-folders.ts';

export const distDir = join(projectDir, 'dist');

export type RuntimeName = 'node' | 'worker' | 'worker-r2';
/** The runtimes every suite of the API runs against. */
export const runtimeNames: readonly RuntimeName[] = ['node', 'worker'];
/** The contract, suggestion, release and hostile suites also run the Worker's R2 mode. */
export const contractRuntimeNames: readonly RuntimeName[] = [...runtimeNames, 'worker-r2'];
/** Whether the runtime is workerd (which may refuse a request it cannot parse). */
export const runsInWorkerd = (name: RuntimeName): boolean => name !== 'node';

export interface TokenOptions {
  tokens?: readonly string[];
  tokenSha256?: readonly string[];
}

export interface Runtime {
  name: RuntimeName;
  /** Origin, no trailing slash: `${url}/api/trees`. */
  url: string;
  close(): Promise<void>;
}

/** A port no one listens on right now at `host`. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface RuntimeOptions extends TokenOptions {
  /** The build to serve: dist/ unless told otherwise (a copy in a temp folder, say). */
  servedDir?: string;
  /** API_RATE_LIMIT (off when absent). */
  rateLimit?: RateLimit;
  /** The Node server's clock for its rate windows (the Worker's binding keeps Cloudflare's own time). */
  rateClock?: () => number;
  /** The Worker counts its invocations (INVOCATIONS_PATH tells them). */
  countInvocations?: boolean;
  /** worker-r2: bundles larger than this many bytes are served from R2 (R2_DOWNLOADS_ABOVE). */
  downloadsAbove?: number;
  /** worker-r2: wrangler's local R2 in this folder, kept when the run closes (a temp folder of its own by default). */
  persistDir?: string;
  /** DISCORD_PUBLIC_KEY (hex): the Discord app answers at /discord/interactions. */
  discordPublicKey?: string;
  /** TRUST_PROXY, on the Node server (the Worker's client is CF-Connecting-IP); off when absent. */
  trustProxy?: string;
  /** TRUST_PROXY_HEADER, with trustProxy. */
  trustProxyHeader?: ForwardingHeader;
}

/** Starts a runtime; its close can be called more than once, and is called at the file's end if not before. */
export function startRuntime(name: RuntimeName, options: RuntimeOptions): Promise<Runtime> {
  let closing: Promise<void> | undefined;
  const starting: Promise<Runtime> = launch(name, options).then((runtime) => ({
    ...runtime,
    close: () => {
      closing ??= runtime.close().finally(() => closedRuntime(starting));
      return closing;
    },
  }));
  trackUnclosed(starting);
  return starting;
}

export { closeStartedRuntimes } from './unclosed-runtimes.ts';

async function launch(name: RuntimeName, options: RuntimeOptions): Promise<Runtime> {
  const {
    servedDir = distDir,
    countInvocations,
    downloadsAbove,
    persistDir: givenPersistDir,
    rateClock,
    discordPublicKey,
    trustProxy,
    trustProxyHeader,
    ...tokens
  } = options;
  if (name === 'node') {
    const trusted = trustProxy === undefined ? undefined : trustedProxies(trustProxy);
    if (typeof trusted === 'string') throw new Error(`trustProxy ${trustProxy}: ${trusted}`);
    const proxies = { trustProxy: trusted, trustProxyHeader: trustProxyHeader ?? 'x-forwarded-for' };
    const server = await startServer({ distDir: servedDir, rateClock, discordPublicKey, ...proxies, ...tokens });
    return { name, url: server.url, close: () => server.close(0) };
  }
  const vars: Record<string, string> = discordPublicKey === undefined ? {} : { DISCORD_PUBLIC_KEY: discordPublicKey };
  if (name === 'worker') {
    const worker = await startWorker({
      port: await freePort(),
      assetsDir: servedDir,
      countInvocations,
      vars,
      ...tokens,
    });
    return { name, url: worker.url, close: worker.close };
  }
  // A local R2 seeded from the build: of its own, removed with the run, unless one is given.
  const persistDir = givenPersistDir ?? temporaryFolder('treefarm-r2-');
  const worker = await startWorker({
    port: await freePort(),
    assetsDir: servedDir,
    bodies: 'r2',
    persistDir,
    countInvocations,
    downloadsAbove,
    vars,
    ...tokens,
  });
  return {
    name,
    url: worker.url,
    close: () => worker.close().finally(() => givenPersistDir ?? rmSync(persistDir, { recursive: true, force: true })),
  };
}
