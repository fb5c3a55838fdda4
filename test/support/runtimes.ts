// Starts the API in each runtime against the built dist/, so one suite can assert the
// contract of both: the Node server in-process and the Worker in workerd (wrangler dev).
import { createServer } from 'node:net';
import { join } from 'node:path';
import { projectDir } from '../../src/build/site.ts';
import { startWorker } from '../../src/server/worker-dev.ts';
import { startServer } from '../../src/server/app.ts';
import type { RateLimit } from '../../src/schema/environment.ts';

export const distDir = join(projectDir, 'dist');

export type RuntimeName = 'node' | 'worker';
export const runtimeNames: readonly RuntimeName[] = ['node', 'worker'];

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
}

export async function startRuntime(name: RuntimeName, options: RuntimeOptions): Promise<Runtime> {
  const { servedDir = distDir, ...tokens } = options;
  if (name === 'node') {
    const server = await startServer({ distDir: servedDir, ...tokens });
    return { name, url: server.url, close: () => server.close(0) };
  }
  const worker = await startWorker({ port: await freePort(), assetsDir: servedDir, ...tokens });
  return { name, url: worker.url, close: worker.close };
}
