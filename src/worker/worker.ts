// The Cloudflare Worker: the same edge core in front of Workers static assets. In the
// assets-only mode it runs first for every request (wrangler.toml), so the API folder is
// reachable only through the core; in the R2 mode (an API_BUCKET binding) the API's files are
// in R2 alone and the Worker runs only for the routes that need the core and the offline
// bundles. Everything the core calls static goes to the assets binding, but the bundles, which
// downloads.ts serves (from the assets, or from R2 past R2_DOWNLOADS_ABOVE) with ranges. It
// reads the routing index a shard at a time and each body by its SHA-256, so a cold isolate
// reads one root, one shard and one body before its first answer, whatever the size of the
// build (in the R2 mode, first the deploy object that names the roots, once per isolate).
// Web-standard only: no nodejs_compat. Env and the runtime's types come from
// `npm run worker:types`.
import { bodyLayout, type BodyPart } from '../contract/body-container.ts';
import { sha256Hex } from '../contract/sha256.ts';
import { BUCKET_BINDING, RATE_LIMIT_BINDING } from '../contract/bindings.ts';
import {
  bucketKey,
  checkDeployObject,
  checkScopeRoot,
  type DeployObject,
  deployKey,
  INDEX_VARIABLE,
  INVOCATIONS_PATH,
  type ScopeRoot,
  scopeName,
  scopeRootKey,
  shardKey,
} from '../contract/bucket-layout.ts';
import { rootPath, shardPath, storedBodyPath } from '../contract/paths.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { checkRoot, type IndexRoot, type IndexShard } from '../contract/route-index.ts';
import {
  createEdge,
  type EdgeDecision,
  type EdgeRateLimit,
  type EdgeRequest,
  type EdgeResponse,
} from '../edge/core.ts';
import { bundleDownloads, type DownloadServer } from './downloads.ts';
import { lazyRoute } from './lazy-route.ts';
import { once } from './once.ts';
import { boundedMemo } from '../edge/memo.ts';
import { tokensOf } from '../edge/tokens.ts';
import { errorBody } from '../contract/messages.ts';
import { failureAnswer } from '../edge/failure.ts';
import { EnvironmentError, RATE_LIMIT_VARIABLE } from '../schema/environment.ts';
import { type WorkerSettings, workerSettings } from './settings.ts';

/**
 * Env as wrangler.toml types it, with the optional rate limit's binding and the optional R2
 * mode's bucket. Its variables (API_RATE_LIMIT, API_INDEX, ...) are read by settings.ts alone.
 */
type WorkerEnv = Env & {
  [RATE_LIMIT_BINDING]?: RateLimit;
  [BUCKET_BINDING]?: R2Bucket;
};

/** POST /mcp, loaded by the first request for it: a GET never pays for the MCP SDK. */
const mcpRoute = lazyRoute(() => import('./lazy/mcp.js'));

/** Bodies an isolate keeps, oldest out past this many bytes: well inside its 128 MB (docs/deploy.md). */
const BODY_CACHE_BYTES = 16 * 1024 * 1024;
/** Parsed index shards and roots an isolate keeps: at most 32 KiB each (MAX_SHARD_BYTES). */
const INDEX_CACHE_ENTRIES = 256;

type Bytes = Uint8Array<ArrayBuffer>;

interface Isolate {
  decide: (request: EdgeRequest) => Promise<EdgeDecision>;
  /** The build's routing index, which /mcp's tools read too. */
  index: RouteIndex;
  body(stored: string, part: BodyPart): Promise<Bytes>;
  /** The offline bundles, from the assets or (the R2 mode, those too large for an asset) the bucket. */
  downloads: DownloadServer;
  /** DISCORD_PUBLIC_KEY: the Discord app's, when it is on. */
  discordPublicKey: string | undefined;
}

/** The isolate's variables (settings.ts), read at its first request; a bad one is each request's 500 (`failed`). */
let settings: WorkerSettings | undefined;
let isolate: Promise<Isolate> | undefined;
/** Requests this isolate ran, told at INVOCATIONS_PATH when a local run counts them. */
let invocations = 0;

/** Reads an API file by its dist/ path: its bytes, or undefined when it is not deployed. */
interface ApiFiles {
  read(path: string): Promise<Bytes | undefined>;
  /** Where the files are, for an error message. */
  where: string;
}

/** The API's files as static assets (the assets-only mode). */
function assetFiles(env: Env, origin: string): ApiFiles {
  const where = 'the deployed assets';
  return {
    where,
    async read(path) {
      const response = await env.ASSETS.fetch(`${origin}/${path}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`${path} could not be read from ${where} (${response.status})`);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

/** The index the R2 mode serves, which its deploy uploaded (API_INDEX). */
function indexIdOf({ index: indexId }: WorkerSettings): string {
  if (indexId === undefined)
    throw new EnvironmentError(
      `the ${BUCKET_BINDING} R2 binding is configured but ${INDEX_VARIABLE} (the index the deploy uploaded) is not set`,
    );
  return indexId;
}

const inBucket = `the ${BUCKET_BINDING} R2 bucket`;

/** The API's bodies in the R2 bucket (the R2 mode), keyed as src/contract/bucket-layout.ts says. */
function bucketFiles(bucket: R2Bucket): ApiFiles {
  return {
    where: inBucket,
    async read(path) {
      const key = bucketKey(path);
      const object = key === undefined ? null : await bucket.get(key);
      return object ? new Uint8Array(await object.arrayBuffer()) : undefined;
    },
  };
}

async function requiredFile(files: ApiFiles, path: string): Promise<Bytes> {
  const bytes = await files.read(path);
  if (!bytes) throw new Error(`${path} is missing from ${files.where}`);
  return bytes;
}

const decoder = new TextDecoder();

/**
 * Reads each file once while it is remembered, even for concurrent requests. Only a read that
 * succeeded is remembered: a failed one is let go as it fails (a later request reads again), so a
 * bucket that keeps failing holds no memory.
 */
function rememberedReads<T>(limit: number): (key: string, read: () => Promise<T>) => Promise<T> {
  const memo = boundedMemo<string, Promise<T>>(limit);
  const reading = new Map<string, Promise<T>>();
  return (key, read) => {
    const known = memo.find(key) ?? reading.get(key);
    if (known) return known;
    const started = read();
    reading.set(key, started);
    started.then(
      () => {
        reading.delete(key);
        memo.set(key, started);
      },
      () => reading.delete(key),
    );
    return started;
  };
}

/**
 * The stored bodies of the deployment, each checked against its SHA-256 when fetched (an asset
 * that does not match is never served) and kept, oldest out past BODY_CACHE_BYTES.
 */
function storedBodies(files: ApiFiles): (stored: string) => Promise<Bytes> {
  const containers = new Map<string, Promise<Bytes>>();
  const sizes = new Map<string, number>();
  let cachedBytes = 0;
  const remember = (stored: string, size: number) => {
    sizes.set(stored, size);
    cachedBytes += size;
    for (const old of containers.keys()) {
      if (cachedBytes <= BODY_CACHE_BYTES) break;
      if (old === stored) continue;
      cachedBytes -= sizes.get(old) ?? 0;
      sizes.delete(old);
      containers.delete(old);
    }
  };
  return (stored) => {
    const known = containers.get(stored);
    if (known) return known;
    const path = storedBodyPath(stored);
    const fetched = requiredFile(files, path).then(async (read) => {
      if ((await sha256Hex(read)) !== stored) throw new Error(`${path} does not match its SHA-256`);
      return read;
    });
    containers.set(stored, fetched);
    fetched.then(
      (verified) => remember(stored, verified.length),
      () => {
        if (containers.get(stored) === fetched) containers.delete(stored);
      },
    );
    return fetched;
  };
}

/** A scope's root and its shards, each read once while it is remembered (INDEX_CACHE_ENTRIES of each). */
type IndexReads = Pick<RouteIndex, 'root' | 'shard'>;

const parsed = (bytes: Bytes): unknown => JSON.parse(decoder.decode(bytes));

/** The routing index as dist/ holds it, a file per root and shard (the assets-only mode). */
function filesIndex(files: ApiFiles): IndexReads {
  const roots = rememberedReads<IndexRoot | undefined>(INDEX_CACHE_ENTRIES);
  const shards = rememberedReads<IndexShard>(INDEX_CACHE_ENTRIES);
  return {
    root: (release) =>
      roots(rootPath(release), async () => {
        const bytes = await files.read(rootPath(release));
        return bytes && checkRoot(parsed(bytes), rootPath(release));
      }),
    shard: (release, n) =>
      shards(shardPath(release, n), async () => parsed(await requiredFile(files, shardPath(release, n))) as IndexShard),
  };
}

/**
 * An object of the bucket named by the SHA-256 of its bytes (by its first 32 hex digits: the
 * deploy object, API_INDEX), checked as a body is: one that does not match is never used.
 */
async function objectNamedBy(bucket: R2Bucket, key: string, sha256: string): Promise<Bytes | undefined> {
  const object = await bucket.get(key);
  if (!object) return undefined;
  const bytes = new Uint8Array(await object.arrayBuffer());
  if (!(await sha256Hex(bytes)).startsWith(sha256)) throw new Error(`${key} does not match its SHA-256`);
  return bytes;
}

async function requiredObject(bucket: R2Bucket, key: string, sha256: string): Promise<Bytes> {
  const bytes = await objectNamedBy(bucket, key, sha256);
  if (!bytes) throw new Error(`${key} is missing from ${inBucket}`);
  return bytes;
}

/**
 * The deploy object API_INDEX names, read once as the isolate starts. Without it API_INDEX names
 * a deploy whose upload did not finish, or another bucket is bound: said once, not as a 404.
 */
async function deployOf(bucket: R2Bucket, indexId: string): Promise<DeployObject> {
  const key = deployKey(indexId);
  // API_INDEX's rule (settings.ts) makes it INDEX_ID_LENGTH hex digits: a prefix that names one object.
  const bytes = await objectNamedBy(bucket, key, indexId);
  if (!bytes)
    throw new EnvironmentError(
      `${inBucket} lacks ${key}, the deploy ${INDEX_VARIABLE} names: its upload did not finish ` +
        '(run the deploy again) or another bucket is bound',
    );
  return checkDeployObject(parsed(bytes), key);
}

/**
 * The routing index in the bucket (the R2 mode): a scope's root as the deploy object names it,
 * then each shard by the SHA-256 that root lists (a shard several scopes share is read once).
 */
function bucketIndex(bucket: R2Bucket, deploy: DeployObject): IndexReads {
  const roots = rememberedReads<ScopeRoot | undefined>(INDEX_CACHE_ENTRIES);
  const shards = rememberedReads<IndexShard>(INDEX_CACHE_ENTRIES);
  const scopeRoot = (release: string | undefined) => {
    const scope = scopeName(release);
    return roots(scope, async () => {
      const sha256 = Object.hasOwn(deploy.scopes, scope) ? deploy.scopes[scope] : undefined;
      if (sha256 === undefined) return undefined;
      const key = scopeRootKey(sha256);
      return checkScopeRoot(parsed(await requiredObject(bucket, key, sha256)), key);
    });
  };
  return {
    root: async (release) => (await scopeRoot(release))?.root,
    shard: async (release, n) => {
      const sha256 = (await scopeRoot(release))?.shards[n];
      if (sha256 === undefined) throw new Error(`the scope ${scopeName(release)} has no shard ${n} in ${inBucket}`);
      return shards(sha256, async () => parsed(await requiredObject(bucket, shardKey(sha256), sha256)) as IndexShard);
    },
  };
}

async function startIsolate(env: WorkerEnv, settings: WorkerSettings, origin: string): Promise<Isolate> {
  const bucket = env[BUCKET_BINDING];
  if (!bucket && settings.index !== undefined)
    throw new EnvironmentError(
      `${INDEX_VARIABLE} is set but the ${BUCKET_BINDING} R2 binding is not ([[r2_buckets]] in wrangler.toml)`,
    );
  // The R2 mode: the bucket, and the deploy API_INDEX names in it.
  const r2 = bucket && { bucket, deploy: await deployOf(bucket, indexIdOf(settings)) };
  const files = r2 ? bucketFiles(r2.bucket) : assetFiles(env, origin);
  const container = storedBodies(files);
  const body = async (stored: string, part: BodyPart): Promise<Bytes> => {
    const bytes = await container(stored);
    const [start, end] = bodyLayout(bytes, storedBodyPath(stored))[part];
    return bytes.slice(start, end);
  };
  const index: RouteIndex = {
    ...(r2 ? bucketIndex(r2.bucket, r2.deploy) : filesIndex(files)),
    text: async (stored) => decoder.decode(await body(stored, 'identity')),
  };
  const tokens = await tokensOf(settings);
  const { discordPublicKey } = settings;
  const core = createEdge({
    index,
    tokenDigests: tokens.map(({ digest }) => digest),
    tokenNames: tokens.map(({ name }) => name),
    rateLimit: rateLimitOf(env, settings),
    discord: discordPublicKey !== undefined,
  });
  const inR2 = r2 && { bucket: r2.bucket, listing: r2.deploy.downloads };
  return { decide: core, index, body, downloads: bundleDownloads(env.ASSETS, origin, inR2), discordPublicKey };
}

/**
 * The rate limit of a deployment: Cloudflare's binding counts, API_RATE_LIMIT states the same
 * numbers for the headers and the 429 (the binding does not tell its own). One without the
 * other is a mistake of the deployment, refused rather than served unlimited (an
 * EnvironmentError naming the missing setting, see `misconfigured`).
 */
function rateLimitOf(env: WorkerEnv, { rateLimit }: WorkerSettings): EdgeRateLimit | undefined {
  const binding = env[RATE_LIMIT_BINDING];
  if (!rateLimit && !binding) return undefined;
  if (!rateLimit || !binding)
    throw new EnvironmentError(
      rateLimit
        ? `${RATE_LIMIT_VARIABLE} is set but the ${RATE_LIMIT_BINDING} rate limiting binding is not ` +
            '([[ratelimits]] in wrangler.toml)'
        : `the ${RATE_LIMIT_BINDING} rate limiting binding is configured but ${RATE_LIMIT_VARIABLE} ` +
            '(its numbers, such as 100/60s) is not set',
    );
  return {
    limit: rateLimit,
    // The binding says only whether this request is within the limit: no remaining count, no
    // reset. An address comes keyed by the core (an IPv6 address by its /64).
    count: async (scope, key) => ({ allowed: (await binding.limit({ key: `${scope}:${key}` })).success }),
  };
}

export default {
  async fetch(request, env: WorkerEnv): Promise<Response> {
    try {
      return await answerRequest(request, env);
    } catch (error) {
      return failed(request, error);
    }
  },
} satisfies ExportedHandler<WorkerEnv>;

/** A request as Cloudflare hands it to the Worker, with its `cf` properties. */
type IncomingRequest = Request<unknown, IncomingRequestCfProperties>;

async function answerRequest(request: IncomingRequest, env: WorkerEnv): Promise<Response> {
  const url = new URL(request.url);
  settings ??= workerSettings(env);
  if (settings.countInvocations && url.pathname === INVOCATIONS_PATH)
    return new Response(String(invocations), { headers: { 'Cache-Control': 'no-store' } });
  invocations++;
  isolate ??= startIsolate(env, settings, url.origin).catch((error: unknown) => {
    isolate = undefined;
    throw error;
  });
  const state = await isolate;
  // Cloudflare's edge (and wrangler's local copy of it) shows the Worker "br, gzip" and keeps
  // the client's own Accept-Encoding in cf.clientAcceptEncoding: negotiate with the client's.
  const clientAcceptEncoding = request.cf?.clientAcceptEncoding;
  const header = (name: string) =>
    name === 'accept-encoding' && clientAcceptEncoding !== undefined ? clientAcceptEncoding : request.headers.get(name);
  const decision = await state.decide({
    method: request.method,
    pathname: url.pathname,
    query: url.search.slice(1),
    header,
    client: request.headers.get('cf-connecting-ip'),
  });
  if (decision.type === 'static') return (await state.downloads(request, url.pathname)) ?? env.ASSETS.fetch(request);
  if (decision.type === 'discord') return answerDiscord(request, state);
  const answer = decision.type === 'counted' ? decision.answer : decision;
  const rateLimit = decision.type === 'counted' ? decision.rateLimit : undefined;
  if (answer.type !== 'mcp') return respond(state, answer, rateLimit);
  const mcp = await (await mcpRoute()).answerMcp(request, state.index, answer.headers);
  if (rateLimit !== undefined) mcp.headers.set('RateLimit', rateLimit);
  return mcp;
}

/** The Discord app (src/edge/discord), loaded at the first request to it, as /mcp is. */
const discordRoute = lazyRoute(() => import('./lazy/discord.js'));
/** The app and its public key (the isolate's own setting), loaded once per isolate while that succeeds. */
let discordApp: (() => Promise<{ answer: DiscordAnswer; key: CryptoKey }>) | undefined;
type DiscordAnswer = Awaited<ReturnType<typeof discordRoute>>['answerDiscord'];

async function answerDiscord(request: Request, state: Isolate): Promise<Response> {
  const hex = state.discordPublicKey;
  if (hex === undefined) throw new Error('the core handed a request to the Discord app, which is off');
  discordApp ??= once(async () => {
    const app = await discordRoute();
    return { answer: app.answerDiscord, key: await app.discordPublicKey(hex) };
  });
  const { answer, key } = await discordApp();
  return answer(request, state.index, key);
}

/**
 * Whatever fails while answering (a body or an object that does not match its SHA-256, one
 * missing or short, a broken index or deploy object) is the API's JSON 500 (src/edge/failure.ts)
 * on every route, /healthz too, rather than Cloudflare's error page: the detail goes to the
 * Worker's log. A deployment whose settings cannot work (a bad value of a variable, a rate limit
 * without its binding or the reverse, the R2 mode's bucket without its index) says which setting in the
 * 500 itself, so whoever deployed it sees why at the first request; it names settings, never a
 * value of a secret.
 */
function failed(request: Request, error: unknown): Response {
  let failure = failureAnswer();
  if (error instanceof EnvironmentError) {
    const message = `This deployment is misconfigured: ${error.message.replaceAll('\n', '; ')}`;
    console.error(message);
    failure = failureAnswer(errorBody(message));
  } else console.error(`${request.method} ${new URL(request.url).pathname} failed:`, error);
  const { status, headers, body } = failure;
  return new Response(request.method === 'HEAD' ? null : body, { status, headers });
}

async function respond(state: Isolate, decision: EdgeResponse, rateLimit?: string): Promise<Response> {
  const headers = new Headers(decision.headers);
  if (rateLimit !== undefined) headers.set('RateLimit', rateLimit);
  const source = decision.body;
  if (source && 'text' in source) {
    // A body made for this query: workerd encodes it as Content-Encoding says (encodeBody
    // "automatic"), so the Worker needs no compression of its own.
    return new Response(decision.omitBody ? null : source.text, { status: decision.status, headers });
  }
  let body: Bytes | null = null;
  if (source) {
    const bytes = await state.body(source.stored, decision.encoding);
    headers.set('Content-Length', String(bytes.length));
    if (!decision.omitBody) body = bytes;
  }
  // The bytes are already encoded as Content-Encoding says: the runtime must not encode again.
  return new Response(body, { status: decision.status, headers, encodeBody: 'manual' });
}
