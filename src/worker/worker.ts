// The Cloudflare Worker: the same edge core in front of Workers static assets. The Worker
// runs first for every request (wrangler.toml), so the API folder is reachable only through
// the core; everything the core calls static goes to the assets binding. Env and the runtime's
// types come from `npm run worker:types` (worker-configuration.d.ts, from wrangler.toml).
import { createEdge, type EdgeDecision, type EdgeRequest, type EdgeResponse } from '../edge/core.ts';
import { encodeText, type Bytes } from '../edge/encode.ts';
import type { Encoding } from '../edge/negotiation.ts';
import { tokenDigests } from '../edge/tokens.ts';
import { compressedPath, MANIFEST_FILE } from '../contract/paths.ts';
import { buildManifestSchema, type BuildManifest } from '../schema/manifest.ts';
import { createHash } from 'node:crypto';

/** Bodies an isolate keeps, oldest out past this many bytes: well inside its 128 MB (docs/deploy.md). */
const BODY_CACHE_BYTES = 16 * 1024 * 1024;

interface Isolate {
  manifest: BuildManifest;
  decide: (request: EdgeRequest) => EdgeDecision;
  /** Verified bodies by file and encoding, as the build wrote them. */
  bodies: Map<string, Promise<Bytes>>;
  /** The sizes of the bodies verified so far, and their total. */
  sizes: Map<string, number>;
  cachedBytes: number;
}

let isolate: Promise<Isolate> | undefined;

async function assetBytes(env: Env, origin: string, path: string): Promise<Bytes> {
  const response = await env.ASSETS.fetch(`${origin}/${path}`);
  if (!response.ok) throw new Error(`${path} is missing from the deployed assets (${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

async function startIsolate(env: Env, origin: string): Promise<Isolate> {
  const manifest = buildManifestSchema.parse(
    JSON.parse(new TextDecoder().decode(await assetBytes(env, origin, MANIFEST_FILE))),
  );
  const decide = createEdge({ manifest, tokenDigests: tokenDigests(env) });
  return { manifest, decide, bodies: new Map(), sizes: new Map(), cachedBytes: 0 };
}

/**
 * The asset holding `file` in `encoding`, checked against the manifest it was deployed with:
 * an API file (any encoding) or a file of the suggestion index (identity).
 */
async function verifiedBody(env: Env, origin: string, state: Isolate, file: string, encoding: Encoding) {
  const entry = state.manifest.files[file];
  const expected = encoding === 'identity' ? (entry ?? state.manifest.index[file]) : entry?.[encoding];
  const path = encoding === 'identity' ? file : compressedPath(file, encoding);
  const bytes = await assetBytes(env, origin, path);
  // An asset that does not match the manifest it was deployed with is never served.
  if (createHash('sha256').update(bytes).digest('hex') !== expected?.sha256)
    throw new Error(`${path} does not match the manifest`);
  return bytes;
}

/** Remembers a verified body, then lets the oldest others go while the cache is over its budget. */
function remember(state: Isolate, key: string, bytes: Promise<Bytes>, size: number): void {
  if (state.bodies.get(key) !== bytes) return;
  state.sizes.set(key, size);
  state.cachedBytes += size;
  for (const oldKey of state.bodies.keys()) {
    if (state.cachedBytes <= BODY_CACHE_BYTES) break;
    if (oldKey === key) continue;
    state.cachedBytes -= state.sizes.get(oldKey) ?? 0;
    state.sizes.delete(oldKey);
    state.bodies.delete(oldKey);
  }
}

function bodyBytes(env: Env, origin: string, state: Isolate, file: string, encoding: Encoding): Promise<Bytes> {
  const key = `${encoding}:${file}`;
  let bytes = state.bodies.get(key);
  if (!bytes) {
    const fetched = verifiedBody(env, origin, state, file, encoding);
    state.bodies.set(key, fetched);
    fetched.then(
      (verified) => remember(state, key, fetched, verified.length),
      () => {
        if (state.bodies.get(key) === fetched) state.bodies.delete(key);
      },
    );
    bytes = fetched;
  }
  return bytes;
}

export default {
  async fetch(request, env): Promise<Response> {
    const url = new URL(request.url);
    isolate ??= startIsolate(env, url.origin).catch((error: unknown) => {
      isolate = undefined;
      throw error;
    });
    const state = await isolate;
    // Cloudflare's edge (and wrangler's local copy of it) shows the Worker "br, gzip" and keeps
    // the client's own Accept-Encoding in cf.clientAcceptEncoding: negotiate with the client's.
    const clientAcceptEncoding = request.cf?.clientAcceptEncoding;
    const header = (name: string) =>
      name === 'accept-encoding' && clientAcceptEncoding !== undefined
        ? clientAcceptEncoding
        : request.headers.get(name);
    const decision = state.decide({
      method: request.method,
      pathname: url.pathname,
      query: url.search.slice(1),
      header,
    });
    if (decision.type === 'static') return env.ASSETS.fetch(request);
    if (decision.type === 'respond') return respond(env, url.origin, state, decision);
    const files = decision.files.map((file) => bodyBytes(env, url.origin, state, file, 'identity'));
    const texts = (await Promise.all(files)).map((bytes) => new TextDecoder().decode(bytes));
    return respond(env, url.origin, state, decision.answer(texts));
  },
} satisfies ExportedHandler<Env>;

async function respond(env: Env, origin: string, state: Isolate, decision: EdgeResponse): Promise<Response> {
  const headers = new Headers(decision.headers);
  let body: Bytes | null = null;
  const source = decision.body;
  if (source) {
    const bytes =
      'file' in source
        ? await bodyBytes(env, origin, state, source.file, decision.encoding)
        : encodeText(source.text, decision.encoding);
    headers.set('Content-Length', String(bytes.length));
    if (!decision.omitBody) body = bytes;
  }
  // The bytes are already encoded as Content-Encoding says: the runtime must not encode again.
  return new Response(body, { status: decision.status, headers, encodeBody: 'manual' });
}
