// Serves the built dist/ on 127.0.0.1 at a random port, for the browser tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import handler from 'serve-handler';
import { projectDir } from '../../src/build/cli.ts';

export const distDir = join(projectDir, 'dist');

export interface StaticServer {
  origin: string;
  close: () => Promise<void>;
}

export async function serveDist(): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    void handler(request, response, { public: distDir, cleanUrls: true, trailingSlash: true, directoryListing: false });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
