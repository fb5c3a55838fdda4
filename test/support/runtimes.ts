// Starts the API in each runtime against the built dist/, so one suite can assert the
// contract of both: the Node server in-process and the Worker in workerd (wrangler dev).
import { createServer } from 'node:net';
import { join } from 'node:path';
import { projectDir } from '../../src/build/site.ts';
import { startWorker } from '../../src/server/worker-dev.ts';
import { startServer } from '../../src/server/app.ts';

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

/** A port no one listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Either runtime in front of the build in `build` (the project's dist/ by default). */
export async function startRuntime(name: RuntimeName, tokens: TokenOptions, build = distDir): Promise<Runtime> {
  if (name === 'node') {
    const server = await startServer({ distDir: build, ...tokens });
    return { name, url: server.url, close: () => server.close(0) };
  }
  const other = build === distDir ? {} : { distDir: build };
  const worker = await startWorker({ port: await freePort(), ...tokens, ...other });
  return { name, url: worker.url, close: worker.close };
}
