// The Worker module run in this process (not in workerd) with a table of mounts of the test's own
// (workerOf), over dist/ through a stand-in assets binding: what a test of the apps' seam needs of
// the Worker, cheaply. test/worker/ runs the module's default the same way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppSettings } from '../../src/apps/mounts.ts';
import type { AppMount } from '../../src/edge/apps.ts';
import { distDir } from './runtimes.ts';

/** A request to the Worker by path on its origin, as fetch() takes it. */
export type WorkerFetch = (path: string, init?: RequestInit) => Promise<Response>;

interface WorkerHandler {
  fetch(request: Request, env: object): Promise<Response>;
}
// Loaded by path: the Worker is typed by workerd's runtime (tsconfig.worker.json), the tests by Node's.
const workerModule = '../../src/worker/worker.ts';

/** The Worker of `mounts` with the variables `vars`; one isolate, made by its first request. */
export async function inProcessWorker(
  mounts: readonly AppMount<AppSettings>[],
  vars: Record<string, string>,
): Promise<WorkerFetch> {
  const { workerOf } = (await import(workerModule)) as {
    workerOf(mounts: readonly AppMount<AppSettings>[]): WorkerHandler;
  };
  const worker = workerOf(mounts);
  const env = {
    ...vars,
    ASSETS: {
      async fetch(request: Request | string) {
        const path = new URL(typeof request === 'string' ? request : request.url).pathname.slice(1);
        return new Response(new Uint8Array(readFileSync(join(distDir, path || 'index.html'))));
      },
    },
  };
  return (path, init) => worker.fetch(new Request(`https://treefarm.example${path}`, init), env);
}
