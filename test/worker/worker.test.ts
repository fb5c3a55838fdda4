// The Worker module (src/worker/worker.ts) in-process, with a stand-in for the assets binding
// that serves the bytes of dist/: fast checks of what only the Worker does, beside the slower
// runs in workerd (test/edge/contract.test.ts, test/reliability/faults.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { compressedPath, listPath, MANIFEST_FILE } from '../../src/contract/paths.ts';
import { planSuggestion } from '../../src/contract/suggest.ts';
import { distDir } from '../support/runtimes.ts';

/** What these tests give the Worker: the assets binding and the plaintext tokens. */
interface StandInEnv {
  ASSETS: { fetch(request: Request | string): Promise<Response> };
  API_TOKENS: string;
}
interface WorkerHandler {
  fetch(request: Request, env: StandInEnv): Promise<Response>;
}
// Loaded by path: the Worker is typed by workerd's runtime (tsconfig.worker.json), this test by Node's.
const workerModule = '../../src/worker/worker.ts';
const isWorkerModule = (loaded: unknown): loaded is { default: WorkerHandler } =>
  typeof loaded === 'object' &&
  loaded !== null &&
  'default' in loaded &&
  typeof loaded.default === 'object' &&
  loaded.default !== null &&
  'fetch' in loaded.default &&
  typeof loaded.default.fetch === 'function';

const TOKEN = 'worker-unit-token';
const ORIGIN = 'https://treefarm.example';
const treesList = listPath('trees');

/** The assets binding over dist/, with some files' bytes replaced. */
function assetsOf(replaced: Record<string, Uint8Array> = {}): StandInEnv['ASSETS'] {
  return {
    async fetch(request) {
      const path = new URL(typeof request === 'string' ? request : request.url).pathname.slice(1);
      const bytes = replaced[path] ?? readFileSync(join(distDir, path));
      return new Response(new Uint8Array(bytes));
    },
  };
}

/** A request as the edge hands it to the Worker: its own Accept-Encoding, the client's in cf. */
function edgeRequest(path: string, clientAcceptEncoding: string | undefined): Request {
  const request = new Request(`${ORIGIN}${path}`, {
    headers: { Authorization: `Bearer ${TOKEN}`, 'Accept-Encoding': 'br, gzip' },
  });
  return Object.assign(request, { cf: { clientAcceptEncoding } });
}

let worker: WorkerHandler;
beforeEach(async () => {
  // A fresh module per test: the Worker keeps its manifest and bodies per isolate.
  vi.resetModules();
  const loaded: unknown = await import(workerModule);
  if (!isWorkerModule(loaded)) throw new Error(`${workerModule} does not export a fetch handler`);
  worker = loaded.default;
});

describe('an API file that does not match the manifest', () => {
  test('is never served, even at the same size, in any encoding (each variant is its own file)', async () => {
    const original = readFileSync(join(distDir, treesList));
    const tampered = Buffer.from(original.toString('utf8').replace('"level":1,', '"level":7,'));
    expect(tampered.length).toBe(original.length);
    /** The same bytes with the last one changed: same size, another sha256. */
    const flipped = (path: string) => {
      const bytes = Buffer.from(readFileSync(join(distDir, path)));
      bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
      return bytes;
    };
    const env: StandInEnv = {
      ASSETS: assetsOf({
        [treesList]: tampered,
        [compressedPath(treesList, 'br')]: flipped(compressedPath(treesList, 'br')),
        [compressedPath(treesList, 'gzip')]: flipped(compressedPath(treesList, 'gzip')),
      }),
      API_TOKENS: TOKEN,
    };
    const files = { identity: treesList, gzip: compressedPath(treesList, 'gzip'), br: compressedPath(treesList, 'br') };
    for (const [coding, file] of Object.entries(files)) {
      await expect(worker.fetch(edgeRequest('/api/trees', coding), env)).rejects.toThrow(
        `${file} does not match the manifest`,
      );
    }
    // The files that match are served.
    expect((await worker.fetch(edgeRequest('/api/cutters', 'identity'), env)).status).toBe(200);
  });
});

describe('a file of the suggestion index that does not match the manifest', () => {
  test('never makes an answer, even at the same size; answers from the other files still do', async () => {
    const { files, index } = JSON.parse(readFileSync(join(distDir, MANIFEST_FILE), 'utf8')) as {
      files: Record<string, unknown>;
      index: Record<string, unknown>;
    };
    const plan = planSuggestion('trees', 'sequioa', (path) => path in files || path in index);
    if (plan.type !== 'near') throw new Error('sequioa should be a near-miss query');
    const shard = plan.shards[0]?.path ?? '';
    const bytes = Buffer.from(readFileSync(join(distDir, shard)));
    // A position digit changed: the same size, another record, another sha256.
    const digit = bytes.indexOf('"1');
    bytes[digit + 1] = '2'.charCodeAt(0);
    const env: StandInEnv = { ASSETS: assetsOf({ [shard]: bytes }), API_TOKENS: TOKEN };
    await expect(worker.fetch(edgeRequest('/api/trees/suggest?search=sequioa', 'identity'), env)).rejects.toThrow(
      `${shard} does not match the manifest`,
    );
    expect((await worker.fetch(edgeRequest('/api/trees/suggest?search=oak', 'identity'), env)).status).toBe(200);
  });
});

describe("the client's Accept-Encoding (cf.clientAcceptEncoding) decides, not the edge's own", () => {
  const identity = readFileSync(join(distDir, treesList));
  const cases: [clientAcceptEncoding: string | undefined, encoding: string | null][] = [
    ['identity', null],
    ['gzip', 'gzip'],
    ['br;q=0.9, gzip;q=1', 'gzip'],
    ['gzip, deflate, br', 'gzip'],
    ['br', 'br'],
    // No client value (a request that did not come through the edge): the header itself.
    [undefined, 'br'],
  ];
  test.each(cases)('client %s: Content-Encoding %s, decoding to the file', async (clientAcceptEncoding, encoding) => {
    const env: StandInEnv = { ASSETS: assetsOf(), API_TOKENS: TOKEN };
    const response = await worker.fetch(edgeRequest('/api/trees', clientAcceptEncoding), env);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe(encoding);
    const body = Buffer.from(await response.arrayBuffer());
    const decoded = encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;
    expect(decoded.equals(identity)).toBe(true);
  });
});
