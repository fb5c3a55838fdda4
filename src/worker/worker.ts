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
import { BUCKET_BINDING, RATE_LIMIT_BINDING } from '../contract/bindings.ts';
import { INDEX_VARIABLE, INVOCATIONS_PATH } from '../contract/bucket-layout.ts';
import { errorBody } from '../contract/messages.ts';
import { storedBodyPath } from '../contract/paths.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { type AppSettings, MOUNTS } from '../apps/mounts.ts';
import { type AppMount, type AppTable, appUnavailable, mountAt } from '../edge/apps.ts';
import {
  type AppHandOff,
  createEdge,
  type EdgeDecision,
  type EdgeRateLimit,
  type EdgeRequest,
  type EdgeResponse,
} from '../edge/core.ts';
import { failureAnswer } from '../edge/failure.ts';
import { isGuarded, routeOf } from '../edge/route.ts';
import { tokensOf } from '../edge/tokens.ts';
import { EnvironmentError, RATE_LIMIT_VARIABLE } from '../schema/environment.ts';
import { assetFiles, type Bytes, bucketFiles, storedBodies } from './api-files.ts';
import { bucketIndex, deployOf, filesIndex, indexIdOf } from './api-index.ts';
import { featureOff, workerApps } from './apps.ts';
import { bundleDownloads, type DownloadServer } from './downloads.ts';
import { type WorkerConfiguration, type WorkerSettings, workerSettings } from './settings.ts';

/**
 * Env as wrangler.toml types it, with the optional rate limit's binding and the optional R2
 * mode's bucket. Its variables (API_RATE_LIMIT, API_INDEX, ...) are read by settings.ts alone.
 */
type WorkerEnv = Env & {
  [RATE_LIMIT_BINDING]?: RateLimit;
  [BUCKET_BINDING]?: R2Bucket;
};

interface Isolate {
  decide: (request: EdgeRequest) => Promise<EdgeDecision>;
  /** The build's routing index, which the apps read too. */
  index: RouteIndex;
  body(stored: string, part: BodyPart): Promise<Bytes>;
  /** The offline bundles, from the assets or (the R2 mode, those too large for an asset) the bucket. */
  downloads: DownloadServer;
  /** The edge's apps, each loaded by its first request. */
  apps: AppTable;
}

/** What an isolate keeps between requests. */
interface IsolateState {
  /** The apps it mounts (MOUNTS, src/apps/mounts.ts; a test mounts its own beside them). */
  readonly mounts: readonly AppMount<AppSettings>[];
  /**
   * The isolate's variables (settings.ts), read at its first request: a malformed one of a feature
   * turns that feature off, said once in the log; one of no feature is each request's 500 (`failed`).
   */
  configuration?: WorkerConfiguration;
  isolate?: Promise<Isolate>;
  /** Requests this isolate ran, told at INVOCATIONS_PATH when a local run counts them. */
  invocations: number;
}

const decoder = new TextDecoder();

async function startIsolate(
  env: WorkerEnv,
  { settings, disabled }: WorkerConfiguration,
  origin: string,
  mounts: readonly AppMount<AppSettings>[],
): Promise<Isolate> {
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
  const apps = workerApps(mounts, { settings, disabled });
  const core = createEdge({
    index,
    tokenDigests: tokens.map(({ digest }) => digest),
    tokenNames: tokens.map(({ name }) => name),
    rateLimit: disabled.has('api') ? undefined : rateLimitOf(env, settings),
    disabled: [...disabled.keys()],
  });
  const inR2 = r2 && { bucket: r2.bucket, listing: r2.deploy.downloads };
  return { decide: core, index, body, downloads: bundleDownloads(env.ASSETS, origin, inR2), apps };
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
    count: async (countedBy, key) => ({ allowed: (await binding.limit({ key: `${countedBy}:${key}` })).success }),
  };
}

/** The Worker of `mounts`: its module's default is MOUNTS's; a test's build mounts its own beside them. */
export function workerOf(mounts: readonly AppMount<AppSettings>[]): ExportedHandler<WorkerEnv> {
  const state: IsolateState = { mounts, invocations: 0 };
  return {
    async fetch(request, env): Promise<Response> {
      try {
        return await answerRequest(request, env, state);
      } catch (error) {
        return failed(request, error);
      }
    },
  };
}

export default workerOf(MOUNTS);

/** A request as Cloudflare hands it to the Worker, with its `cf` properties. */
type IncomingRequest = Request<unknown, IncomingRequestCfProperties>;

async function answerRequest(request: IncomingRequest, env: WorkerEnv, state: IsolateState): Promise<Response> {
  const url = new URL(request.url);
  if (!state.configuration) {
    state.configuration = workerSettings(env);
    for (const [feature, problem] of state.configuration.disabled) console.error(featureOff(feature, problem));
  }
  const configuration = state.configuration;
  const { settings, disabled } = configuration;
  if (url.pathname === INVOCATIONS_PATH) {
    const off = disabled.get('invocations');
    if (off !== undefined) return appUnavailable(featureOff('invocations', off));
    if (settings.countInvocations)
      return new Response(String(state.invocations), { headers: { 'Cache-Control': 'no-store' } });
  }
  state.invocations++;
  state.isolate ??= startIsolate(env, configuration, url.origin, state.mounts).catch((error: unknown) => {
    state.isolate = undefined;
    throw error;
  });
  const isolate = await state.isolate;
  // Cloudflare's edge (and wrangler's local copy of it) shows the Worker "br, gzip" and keeps
  // the client's own Accept-Encoding in cf.clientAcceptEncoding: negotiate with the client's.
  const clientAcceptEncoding = request.cf?.clientAcceptEncoding;
  const header = (name: string) =>
    name === 'accept-encoding' && clientAcceptEncoding !== undefined ? clientAcceptEncoding : request.headers.get(name);
  const edgeRequest: EdgeRequest = {
    method: request.method,
    pathname: url.pathname,
    query: url.search.slice(1),
    header,
    client: request.headers.get('cf-connecting-ip'),
    // Looked up once: the check below and the core read it.
    mount: mountAt(url.pathname, isolate.apps.on),
  };
  // The API off (a malformed token list or limit): its 503 on /api/ and the apps it guards, with
  // their preflights, never the API unguarded.
  const apiOff = disabled.get('api');
  if (apiOff !== undefined && isGuarded(routeOf(edgeRequest))) return appUnavailable(featureOff('api', apiOff));
  const decision = await isolate.decide(edgeRequest);
  if (decision.type === 'static') return (await isolate.downloads(request, url.pathname)) ?? env.ASSETS.fetch(request);
  const answer = decision.type === 'counted' ? decision.answer : decision;
  const rateLimit = decision.type === 'counted' ? decision.rateLimit : undefined;
  if (answer.type === 'app') return answerApp(request, isolate, answer, rateLimit);
  return respond(isolate, answer, rateLimit);
}

/** A request the core handed to an app: its refusal (405, 503) or the app's answer, with its RateLimit. */
async function answerApp(request: Request, isolate: Isolate, handOff: AppHandOff, rateLimit?: string) {
  const answer = await isolate.apps.answer(handOff, request.method, () => request, isolate.index);
  if (rateLimit !== undefined) answer.headers.set('RateLimit', rateLimit);
  return answer;
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
