// The Worker module (src/worker/worker.ts) in-process, with a stand-in for the assets binding
// that serves the bytes of dist/ (or, in the R2 mode, for the bucket, also to watch its reads):
// fast checks of what only the Worker does, beside the slower runs in workerd
// (test/edge/contract.test.ts, test/reliability/faults.test.ts).
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  BUCKET_FOLDERS,
  deployKey,
  INVOCATIONS_PATH,
  scopeRootKey,
  shardKey,
} from '../../src/contract/bucket-layout.ts';
import type { Latest } from '../../src/contract/bundle-layout.ts';
import {
  BODIES_DIR,
  INDEX_DIR,
  listRoute,
  rootPath,
  shardPath,
  storedBodyPath,
  suggestShardRoute,
} from '../../src/contract/paths.ts';
import { checkRoot, type IndexRoot, shardOf } from '../../src/contract/route-index.ts';
import { bucketPlan, UploadInterrupted, uploadMissing } from '../../src/cloudflare/bucket-objects.ts';
import { routeBody, routeBytes } from '../support/dist-routes.ts';
import { CONTRACT_FAILURE, failureSeen } from '../support/failure-answer.ts';
import { type MemoryBucket, memoryBucket } from '../support/memory-bucket.ts';
import { distDir } from '../support/runtimes.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

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
const treesList = storedBodyPath(routeBody(listRoute('trees')) ?? '');

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

/** The Worker as a new isolate loads it: nothing remembered of an earlier env. */
async function freshWorker(): Promise<WorkerHandler> {
  vi.resetModules();
  const loaded: unknown = await import(workerModule);
  if (!isWorkerModule(loaded)) throw new Error(`${workerModule} does not export a fetch handler`);
  return loaded.default;
}

let worker: WorkerHandler;
beforeEach(async () => {
  // A fresh module per test: the Worker keeps its manifest and bodies per isolate.
  worker = await freshWorker();
});

const textBytes = (text: string) => new TextEncoder().encode(text);
const currentRoot = (): IndexRoot =>
  checkRoot(JSON.parse(readFileSync(join(distDir, rootPath(undefined)), 'utf8')), rootPath(undefined));

/** A full garbage collection, after the current job (a WeakRef read in it keeps its target). */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

/** The same bytes with one changed: the same size, another sha256. */
function flipped(path: string, at: (length: number) => number): Buffer {
  const bytes = Buffer.from(readFileSync(join(distDir, path)));
  const index = at(bytes.length);
  bytes[index] = (bytes[index] ?? 0) ^ 1;
  return bytes;
}

/** console.error, which the Worker writes a failure's detail to (its log), watched and kept off this test's output. */
function watchedLog() {
  const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  return () =>
    error.mock.calls.map((call) => call.map((part) => (part instanceof Error ? part.message : String(part))).join(' '));
}
afterEach(() => {
  vi.restoreAllMocks();
});

describe('a stored body that does not match its SHA-256', () => {
  test('is never served, in any encoding, even at the same size: the JSON 500, the detail to the log', async () => {
    const original = readFileSync(join(distDir, treesList));
    const tampered = Buffer.from(original.toString('latin1').replace('"level":1,', '"level":7,'), 'latin1');
    expect(tampered.length).toBe(original.length);
    const log = watchedLog();
    // The identity part, and the last byte (the gzip part's).
    for (const bytes of [tampered, flipped(treesList, (length) => length - 1)]) {
      const isolate = await freshWorker();
      const env: StandInEnv = { ASSETS: assetsOf({ [treesList]: bytes }), API_TOKENS: TOKEN };
      for (const coding of ['identity', 'gzip', 'br']) {
        expect(await failureSeen(await isolate.fetch(edgeRequest('/api/trees', coding), env))).toEqual(
          CONTRACT_FAILURE,
        );
        expect(log().at(-1)).toContain(`${treesList} does not match its SHA-256`);
      }
      // The bodies that match are served.
      expect((await isolate.fetch(edgeRequest('/api/cutters', 'identity'), env)).status).toBe(200);
    }
  });
});

describe('a near-miss shard that does not match its SHA-256', () => {
  test('never makes an answer, even at the same size; answers from the other bodies still do', async () => {
    // "sequioa" falls in the near-miss shard of "se" (or one below it), whose body is read to answer.
    const shard = ['seq', 'se']
      .map((prefix) => routeBody(suggestShardRoute('trees', prefix)))
      .find((body) => body !== undefined);
    const path = storedBodyPath(shard ?? '');
    const env: StandInEnv = { ASSETS: assetsOf({ [path]: flipped(path, (length) => length - 2) }), API_TOKENS: TOKEN };
    const log = watchedLog();
    const answer = await worker.fetch(edgeRequest('/api/trees/suggest?search=sequioa', 'identity'), env);
    expect(await failureSeen(answer)).toEqual(CONTRACT_FAILURE);
    expect(log().at(-1)).toContain(`${path} does not match its SHA-256`);
    expect((await worker.fetch(edgeRequest('/api/trees/suggest?search=oak', 'identity'), env)).status).toBe(200);
  });
});

describe('a broken routing index in the assets is the JSON 500, on every route the core reads it for', () => {
  const cases: [damage: string, path: string, bytes: Uint8Array][] = [
    ['a shard that is not JSON', shardPath(undefined, shardOf(listRoute('trees'), currentRoot())), textBytes('{"tre')],
    ['a root that is not JSON', rootPath(undefined), textBytes('{"version":')],
    ['a root of the wrong shape', rootPath(undefined), textBytes('{"version":"x","shards":0}')],
  ];
  test.each(cases)('%s: /api/trees', async (_damage, path, bytes) => {
    const log = watchedLog();
    const env: StandInEnv = { ASSETS: assetsOf({ [path]: bytes }), API_TOKENS: TOKEN };
    expect(await failureSeen(await worker.fetch(edgeRequest('/api/trees', 'identity'), env))).toEqual(CONTRACT_FAILURE);
    expect(log().join('\n')).toMatch(/GET \/api\/trees failed/);
  });

  test('a root that is not JSON: /healthz too, and a HEAD gets the headers alone', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const env: StandInEnv = {
      ASSETS: assetsOf({ [rootPath(undefined)]: textBytes('{"version":') }),
      API_TOKENS: TOKEN,
    };
    expect(await failureSeen(await worker.fetch(edgeRequest('/healthz', 'identity'), env))).toEqual(CONTRACT_FAILURE);
    const head = await worker.fetch(new Request(`${ORIGIN}/healthz`, { method: 'HEAD' }), env);
    expect({
      status: head.status,
      cors: head.headers.get('access-control-allow-origin'),
      body: await head.text(),
    }).toEqual({
      status: 500,
      cors: '*',
      body: '',
    });
  });
});

describe("the client's Accept-Encoding (cf.clientAcceptEncoding) decides, not the edge's own", () => {
  const identity = routeBytes(listRoute('trees'));
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

describe('a deployment whose settings cannot work says which setting: 500, or 503 on a feature it turns off', () => {
  // The Worker also writes the message to its log; not to this test's output.
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const binding = { limit: async () => ({ success: true }) };
  const misconfigured = async (env: Record<string, unknown>) => {
    const response = await worker.fetch(edgeRequest('/api/trees', 'identity'), {
      ASSETS: assetsOf(),
      API_TOKENS: TOKEN,
      ...env,
    } as StandInEnv);
    return {
      status: response.status,
      cacheControl: response.headers.get('cache-control'),
      body: (await response.json()) as { error: boolean; message: string },
    };
  };

  test('API_RATE_LIMIT without the API_RATE_LIMITER binding', async () => {
    const answer = await misconfigured({ API_RATE_LIMIT: '100/60s' });
    expect(answer).toEqual({
      status: 500,
      cacheControl: 'no-store',
      body: { error: true, message: expect.stringContaining('API_RATE_LIMITER rate limiting binding is not') },
    });
    expect(answer.body.message).toMatch(/^This deployment is misconfigured: API_RATE_LIMIT is set/);
  });

  test('the API_RATE_LIMITER binding without API_RATE_LIMIT', async () => {
    const answer = await misconfigured({ API_RATE_LIMITER: binding });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toContain('API_RATE_LIMIT (its numbers, such as 100/60s) is not set');
  });

  test('a bad API_RATE_LIMIT turns the API off (503, never unlimited), naming it; both set serve', async () => {
    const answer = await misconfigured({ API_RATE_LIMIT: 'lots', API_RATE_LIMITER: binding });
    expect(answer.status).toBe(503);
    expect(answer.body.message).toContain("This deployment's api feature is off: API_RATE_LIMIT must be");
    const env = { ASSETS: assetsOf(), API_TOKENS: TOKEN, API_RATE_LIMIT: '100/60s', API_RATE_LIMITER: binding };
    const served = await (await freshWorker()).fetch(edgeRequest('/api/trees', 'identity'), env as StandInEnv);
    expect(served.status).toBe(200);
    expect(served.headers.get('ratelimit-policy')).toBe('"token";q=100;w=60');
  });

  test('the API_BUCKET binding without API_INDEX', async () => {
    const answer = await misconfigured({ API_BUCKET: memoryBucket() });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toBe(
      'This deployment is misconfigured: the API_BUCKET R2 binding is configured but API_INDEX ' +
        '(the index the deploy uploaded) is not set',
    );
  });

  test('API_INDEX without the API_BUCKET binding', async () => {
    const answer = await misconfigured({ API_INDEX: 'f00d'.repeat(8) });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toBe(
      'This deployment is misconfigured: API_INDEX is set but the API_BUCKET R2 binding is not ' +
        '([[r2_buckets]] in wrangler.toml)',
    );
  });

  test('an API_INDEX that is not 32 lowercase hex digits names the variable and the value', async () => {
    const answer = await misconfigured({ API_BUCKET: memoryBucket(), API_INDEX: 'F00D' });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toBe(
      'This deployment is misconfigured: API_INDEX must be 32 lowercase hex digits ' +
        '(the deploy\'s, as `npm run deploy` sets it), got "F00D"',
    );
  });

  test('a bad COUNT_INVOCATIONS turns its counter alone off, naming the variable and the value', async () => {
    const env = { ASSETS: assetsOf(), API_TOKENS: TOKEN, COUNT_INVOCATIONS: 'sometimes' } as StandInEnv;
    const counter = await worker.fetch(new Request(`${ORIGIN}${INVOCATIONS_PATH}`), env);
    expect(counter.status).toBe(503);
    expect(await counter.json()).toEqual({
      error: true,
      message: 'This deployment\'s invocations feature is off: COUNT_INVOCATIONS must be on or off, got "sometimes"',
    });
    expect((await worker.fetch(edgeRequest('/api/trees', 'identity'), env)).status).toBe(200);
  });

  test('each bad variable turns its own feature off, and /healthz names every one', async () => {
    const env = { ASSETS: assetsOf(), API_TOKENS: TOKEN, COUNT_INVOCATIONS: 'sometimes', API_RATE_LIMIT: 'lots' };
    const health = await worker.fetch(new Request(`${ORIGIN}/healthz`), env as StandInEnv);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', disabled: ['api', 'invocations'] });
    const answer = await misconfigured({ COUNT_INVOCATIONS: 'sometimes', API_RATE_LIMIT: 'lots' });
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/API_RATE_LIMIT must be .*, got "lots"$/);
  });

  test("API_INDEX naming a deploy the bucket lacks: the binding and the deploy object's key", async () => {
    const index = 'f00d'.repeat(8);
    const answer = await misconfigured({ API_BUCKET: memoryBucket(), API_INDEX: index });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toBe(
      `This deployment is misconfigured: the API_BUCKET R2 bucket lacks index/deploys/${index}.json, the ` +
        'deploy API_INDEX names: its upload did not finish (run the deploy again) or another bucket is bound',
    );
  });
});

describe('COUNT_INVOCATIONS is a switch, as every on/off variable', () => {
  /** The answer at INVOCATIONS_PATH after one request to the API, the assets answering that path with their own. */
  async function toldAfterOneRequest(countInvocations: string) {
    const api = assetsOf();
    const env = {
      ASSETS: {
        fetch: async (request: Request | string) =>
          new URL(typeof request === 'string' ? request : request.url).pathname === INVOCATIONS_PATH
            ? new Response('an asset')
            : api.fetch(request),
      },
      API_TOKENS: TOKEN,
      COUNT_INVOCATIONS: countInvocations,
    };
    const fresh = await freshWorker();
    expect((await fresh.fetch(edgeRequest('/api/trees', 'identity'), env)).status).toBe(200);
    return (await fresh.fetch(new Request(`${ORIGIN}${INVOCATIONS_PATH}`), env)).text();
  }

  test.each(['on', 'ON', 'yes', 'true', '1', ' On '])(
    '%j counts: the path tells the requests the Worker ran',
    async (on) => {
      expect(await toldAfterOneRequest(on)).toBe('1');
    },
  );

  test.each(['off', 'OFF', 'no', 'false', '0', ''])('%j does not: the path is an asset as any other', async (off) => {
    expect(await toldAfterOneRequest(off)).toBe('an asset');
  });
});

describe('the R2 mode', () => {
  // The static assets of the R2 mode hold no API file: every API byte comes from the bucket.
  const noApiAssets: StandInEnv['ASSETS'] = { fetch: async () => new Response(null, { status: 404 }) };
  const r2Env = (bucket: MemoryBucket, index: string) =>
    ({ ASSETS: noApiAssets, API_TOKENS: TOKEN, API_BUCKET: bucket, API_INDEX: index }) as StandInEnv;
  const trees = async (bucket: MemoryBucket, index: string) =>
    (await freshWorker()).fetch(edgeRequest('/api/trees', 'identity'), r2Env(bucket, index));
  /** A bucket holding the build of dist/, and its plan. */
  async function deployedBucket() {
    const bucket = memoryBucket();
    const plan = bucketPlan(distDir);
    await uploadMissing(bucket, plan);
    return { bucket, plan };
  }

  test('a cold isolate reads the deploy object, one scope root, one shard and one body', async () => {
    const { bucket, plan } = await deployedBucket();
    const reads: string[] = [];
    const get = bucket.get;
    bucket.get = (key) => {
      reads.push(key);
      return get(key);
    };
    const served = await trees(bucket, plan.indexId);
    expect(Buffer.from(await served.arrayBuffer()).equals(routeBytes(listRoute('trees')))).toBe(true);
    expect(reads.map((key) => key.replace(/[^/]+$/, ''))).toEqual([
      BUCKET_FOLDERS.deploys,
      BUCKET_FOLDERS.roots,
      BUCKET_FOLDERS.shards,
      BUCKET_FOLDERS.bodies,
    ]);
  });

  /** The key of each index object /api/trees reads: the deploy object, the current data's root, its route's shard. */
  function indexKeysOfTrees(bucket: MemoryBucket, indexId: string) {
    const json = (key: string) => JSON.parse(new TextDecoder().decode(bucket.objects.get(key)));
    const deploy = deployKey(indexId);
    const root = scopeRootKey(json(deploy).scopes.current);
    const { root: scope, shards } = json(root);
    const shard = shardKey(shards[shardOf(listRoute('trees'), scope)]);
    return { 'deploy object': deploy, 'scope root': root, shard };
  }

  test.each(['deploy object', 'scope root', 'shard'] as const)(
    'a %s whose bytes do not match the SHA-256 that names it is never used: the JSON 500, its key in the log',
    async (kind) => {
      const { bucket, plan } = await deployedBucket();
      const key = indexKeysOfTrees(bucket, plan.indexId)[kind];
      // One SHA-256 it names changed by a digit: the same size, still JSON, naming another object.
      const text = new TextDecoder().decode(bucket.objects.get(key));
      const tampered = text.replace(
        /"([0-9a-f])([0-9a-f]{63})"/,
        (_, first, rest) => `"${first === '0' ? '1' : '0'}${rest}"`,
      );
      expect(tampered).not.toBe(text);
      expect(tampered.length).toBe(text.length);
      bucket.objects.set(key, new TextEncoder().encode(tampered));
      const log = watchedLog();
      expect(await failureSeen(await trees(bucket, plan.indexId))).toEqual(CONTRACT_FAILURE);
      expect(log().at(-1)).toContain(`${key} does not match its SHA-256`);
    },
  );

  /** The bucket key of the body /api/trees answers with. */
  const treesBodyKey = `${BUCKET_FOLDERS.bodies}${routeBody(listRoute('trees'))}`;

  test('a body object cut short is the JSON 500, its key in the log; the other bodies are served', async () => {
    const { bucket, plan } = await deployedBucket();
    const whole = bucket.objects.get(treesBodyKey);
    if (!whole) throw new Error(`the bucket lacks ${treesBodyKey}`);
    bucket.objects.set(treesBodyKey, whole.subarray(0, whole.length - 100));
    const log = watchedLog();
    const isolate = await freshWorker();
    expect(
      await failureSeen(await isolate.fetch(edgeRequest('/api/trees', 'br'), r2Env(bucket, plan.indexId))),
    ).toEqual(CONTRACT_FAILURE);
    expect(log().at(-1)).toContain(`${treesBodyKey} does not match its SHA-256`);
    const cutters = await isolate.fetch(edgeRequest('/api/cutters', 'identity'), r2Env(bucket, plan.indexId));
    expect(cutters.status).toBe(200);
  });

  test('a body object missing from the bucket is the JSON 500, its key in the log', async () => {
    const { bucket, plan } = await deployedBucket();
    bucket.objects.delete(treesBodyKey);
    const log = watchedLog();
    expect(await failureSeen(await trees(bucket, plan.indexId))).toEqual(CONTRACT_FAILURE);
    expect(log().at(-1)).toContain(`${treesBodyKey} is missing from the API_BUCKET R2 bucket`);
  });

  test('a corrupt deploy object: /healthz is the JSON 500 too', async () => {
    const { bucket, plan } = await deployedBucket();
    const key = deployKey(plan.indexId);
    const bytes = bucket.objects.get(key);
    if (!bytes) throw new Error(`the bucket lacks ${key}`);
    bucket.objects.set(key, bytes.subarray(0, bytes.length - 1));
    const log = watchedLog();
    const health = await (await freshWorker()).fetch(edgeRequest('/healthz', 'identity'), r2Env(bucket, plan.indexId));
    expect(await failureSeen(health)).toEqual(CONTRACT_FAILURE);
    expect(log().at(-1)).toContain(`${key} does not match its SHA-256`);
  });

  test('a read that failed is not remembered: a later request reads again, and the failure is let go', async () => {
    const { bucket, plan } = await deployedBucket();
    const { shard } = indexKeysOfTrees(bucket, plan.indexId);
    const get = bucket.get;
    // The shard's read fails once, with an error only the bucket's promise holds.
    let failing: WeakRef<Error> | undefined;
    bucket.get = (key) => {
      if (key !== shard || failing) return get(key);
      const error = new Error(`a dropped connection reading ${key}`);
      failing = new WeakRef(error);
      return Promise.reject(error);
    };
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const isolate = await freshWorker();
    const env = r2Env(bucket, plan.indexId);
    expect((await isolate.fetch(edgeRequest('/api/trees', 'identity'), env)).status).toBe(500);
    expect((await isolate.fetch(edgeRequest('/api/trees', 'identity'), env)).status).toBe(200);
    // Nothing of the failed read is kept: its error can be collected (the log's copy is let go first).
    vi.restoreAllMocks();
    await collectGarbage();
    expect(failing?.deref()).toBeUndefined();
  });

  /** The next build: the same data with one shard naming one more body, so a new shard, scope root and deploy. */
  function nextBuild(): string {
    const next = temporaryFolder('worker-next-');
    for (const dir of [INDEX_DIR, BODIES_DIR]) cpSync(join(distDir, dir), join(next, dir), { recursive: true });
    const body = 'a body only the next build has';
    const sha256 = createHash('sha256').update(body).digest('hex');
    writeFileSync(join(next, storedBodyPath(sha256)), body);
    const shard = join(next, shardPath(undefined, 0));
    writeFileSync(shard, JSON.stringify({ ...JSON.parse(readFileSync(shard, 'utf8')), 'only/next': sha256 }));
    return next;
  }

  test('the deploy object goes last: a failed put leaves the deployed version serving; a rerun ends it', async () => {
    const { bucket, plan: deployed } = await deployedBucket();
    const next = nextBuild();
    try {
      const plan = bucketPlan(next);
      expect(plan.indexId).not.toBe(deployed.indexId);
      // The new body and the new shard go in, then the new scope root fails.
      bucket.putsLeft = 2;
      const interrupted = await uploadMissing(bucket, plan).catch((error: unknown) => error);
      expect(interrupted).toBeInstanceOf(UploadInterrupted);
      expect((interrupted as UploadInterrupted).key).toMatch(/^index\/roots\//);
      expect(bucket.objects.has(deployKey(plan.indexId))).toBe(false);
      // The Worker deployed before (its API_INDEX) serves as it did, byte for byte.
      const served = await trees(bucket, deployed.indexId);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(routeBytes(listRoute('trees')))).toBe(true);
      // A Worker sent out too soon with the new API_INDEX names what it lacks rather than serving.
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const tooSoon = await trees(bucket, plan.indexId);
      expect(tooSoon.status).toBe(500);
      expect(await tooSoon.text()).toContain(`the API_BUCKET R2 bucket lacks ${deployKey(plan.indexId)}`);
      // The second run puts exactly the new scope root and deploy object, and the new Worker serves.
      bucket.putsLeft = Number.POSITIVE_INFINITY;
      expect((await uploadMissing(bucket, plan)).missing).toBe(2);
      expect((await trees(bucket, plan.indexId)).status).toBe(200);
      expect((await trees(bucket, deployed.indexId)).status).toBe(200);
    } finally {
      vi.restoreAllMocks();
      rmSync(next, { recursive: true, force: true });
    }
  });
});

describe('the rate limit counts a client address by its key (client-address.ts), as the Node server does', () => {
  test('one /64 is one key of the binding; an IPv4 address its own; whatever is not an address one', async () => {
    const keys: string[] = [];
    const binding = {
      limit: async ({ key }: { key: string }) => {
        keys.push(key);
        return { success: true };
      },
    };
    const env = { ASSETS: assetsOf(), API_TOKENS: TOKEN, API_RATE_LIMIT: '100/60s', API_RATE_LIMITER: binding };
    // Cloudflare sets an address; whatever else came would share one short key (issue 62, finding 3).
    const notAnAddress = `_hidden${'x'.repeat(8000)}`;
    for (const client of ['2001:db8:1:2::a', '2001:DB8:1:2:ffff:0:0:b', '2001:db8:1:3::a', '192.0.2.1', notAnAddress]) {
      const request = new Request(`${ORIGIN}/api/trees`, {
        headers: { Authorization: 'Bearer wrong', 'CF-Connecting-IP': client },
      });
      expect((await worker.fetch(request, env as StandInEnv)).status).toBe(401);
    }
    expect(keys).toEqual([
      'address:2001:db8:1:2::/64',
      'address:2001:db8:1:2::/64',
      'address:2001:db8:1:3::/64',
      'address:192.0.2.1',
      'address:unknown',
    ]);
  });
});

describe('a bundle in R2 (the R2 mode past R2_DOWNLOADS_ABOVE)', () => {
  const latest = JSON.parse(readFileSync(join(distDir, 'downloads', 'latest.json'), 'utf8')) as Latest;
  const bundle = latest.bundles.find(({ format }) => format === 'zip') ?? latest.bundles[0];
  if (!bundle) throw new Error('latest.json names no bundle');
  const bundleUrl = `${ORIGIN}/downloads/${bundle.name}`;
  const file = readFileSync(join(distDir, 'downloads', bundle.name));
  const key = `downloads/${bundle.sha256}`;
  const listing = {
    [`/downloads/${bundle.name}`]: { key, size: bundle.size, sha256: bundle.sha256, contentType: 'application/zip' },
  };
  // A deploy object of no scope (the bundle needs none) listing the bundle, named by its digest.
  const deploy = Buffer.from(JSON.stringify({ scopes: {}, downloads: listing }));
  const INDEX = createHash('sha256').update(deploy).digest('hex').slice(0, 32);

  /**
   * A bucket holding the deploy object and, as the bundle's object, `stored` (the bundle unless
   * told; none for null), recording each read: its key and its range. A read by range answers as R2 does: an
   * offset past the object's end is an error, a length past it is cut.
   */
  function recordingBucket(stored: Uint8Array | null = file, checksums: { sha256?: ArrayBuffer } = {}) {
    const reads: { key: string; range?: { offset: number; length: number } }[] = [];
    const bucket = {
      async get(read: string, options: { range?: { offset: number; length: number } } = {}) {
        reads.push({ key: read, ...options });
        // The deploy object, which a Worker in the R2 mode reads as it starts.
        if (read === deployKey(INDEX))
          return {
            arrayBuffer: async () => deploy.buffer.slice(deploy.byteOffset, deploy.byteOffset + deploy.byteLength),
          };
        if (read !== key || stored === null) return null;
        const { offset = 0, length = stored.length } = options.range ?? {};
        if (offset > stored.length) throw new Error('get: The requested range is not satisfiable (10039)');
        const part = stored.subarray(offset, Math.min(offset + length, stored.length));
        return { size: stored.length, checksums, body: new Response(new Uint8Array(part)).body };
      },
    };
    return { bucket, reads };
  }
  /** The Worker over one recording bucket: each request answers with the object reads it made (not the listing's). */
  function workerOverBucket(...stored: Parameters<typeof recordingBucket>) {
    const { bucket, reads } = recordingBucket(...stored);
    const env = { ASSETS: assetsOf(), API_TOKENS: TOKEN, API_BUCKET: bucket, API_INDEX: INDEX };
    return async (headers: Record<string, string>, method = 'GET') => {
      const before = reads.length;
      const response = await worker.fetch(new Request(bundleUrl, { method, headers }), env as StandInEnv);
      const body = new Uint8Array(await response.arrayBuffer());
      return { response, body, objectReads: reads.slice(before).filter((read) => read.key === key) };
    };
  }

  /** What a client sees of an answer workerOverBucket read, to compare with the contract's failure. */
  const seen = ({ response, body }: { response: Response; body: Uint8Array }) =>
    failureSeen(new Response(body.length > 0 ? new Uint8Array(body) : null, response));

  test("an object shorter than listed is the contract's JSON 500, whole or by any range", async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const request = workerOverBucket(file.subarray(0, file.length - 100));
    for (const range of [undefined, 'bytes=-10', 'bytes=0-9', `bytes=${file.length - 50}-`]) {
      const answer = await request(range ? { Range: range } : {});
      expect(await seen(answer), range).toEqual(CONTRACT_FAILURE);
    }
    // The detail goes to the Worker's log: the object's key and both sizes.
    expect(log.mock.calls.flat().map(String).join('\n')).toContain(`${key} (${file.length} bytes listed)`);
  });

  test("an object missing, or whose SHA-256 R2 keeps is another, is the contract's JSON 500", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const digest = (bytes: Uint8Array | string) => new Uint8Array(createHash('sha256').update(bytes).digest()).buffer;
    expect(await seen(await workerOverBucket(null)({}))).toEqual(CONTRACT_FAILURE);
    // A new isolate for each bucket: an isolate keeps the bucket it started with.
    worker = await freshWorker();
    expect(await seen(await workerOverBucket(file, { sha256: digest('another') })({}))).toEqual(CONTRACT_FAILURE);
    worker = await freshWorker();
    // R2's own SHA-256 of the right object is no fault.
    expect((await workerOverBucket(file, { sha256: digest(file) })({})).response.status).toBe(200);
  });

  test('a range is one read of the object by that range, never the whole object', async () => {
    const { response, body, objectReads } = await workerOverBucket()({ Range: 'bytes=100-109' });
    expect(response.status).toBe(206);
    expect(body).toEqual(new Uint8Array(file.subarray(100, 110)));
    expect(objectReads).toEqual([{ key, range: { offset: 100, length: 10 } }]);
  });

  test('the whole file is one read of the object, with no range', async () => {
    const { response, body, objectReads } = await workerOverBucket()({});
    expect(response.status).toBe(200);
    expect(body.length).toBe(bundle.size);
    expect(objectReads).toEqual([{ key }]);
  });

  test('a bundle object the bucket fails to read is the JSON 500, the failure in the log', async () => {
    const { bucket } = recordingBucket();
    const get = bucket.get;
    bucket.get = async (read, options) => {
      if (read === key) throw new Error(`reading ${key}: network connection lost`);
      return get(read, options);
    };
    const log = watchedLog();
    const env = { ASSETS: assetsOf(), API_TOKENS: TOKEN, API_BUCKET: bucket, API_INDEX: INDEX };
    expect(await failureSeen(await worker.fetch(new Request(bundleUrl), env as StandInEnv))).toEqual(CONTRACT_FAILURE);
    expect(log().at(-1)).toContain(`reading ${key}: network connection lost`);
  });

  test('HEAD, a 304 and a 416 read nothing of the object: the listing states its size and SHA-256', async () => {
    const request = workerOverBucket();
    const answers = [
      await request({}, 'HEAD'),
      await request({ 'If-None-Match': `"${bundle.sha256}"` }),
      await request({ Range: `bytes=${bundle.size}-` }),
      // The same Worker does read it for a GET: the reads above were watched.
      await request({ Range: 'bytes=0-0' }),
    ];
    expect(answers.map(({ response }) => response.status)).toEqual([200, 304, 416, 206]);
    expect(answers.map(({ objectReads }) => objectReads.length)).toEqual([0, 0, 0, 1]);
  });
});
