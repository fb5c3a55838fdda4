// The Cloudflare Worker: the same edge core in front of Workers static assets. The Worker
// runs first for every request (wrangler.toml), so the API folder is reachable only through
// the core; everything the core calls static goes to the assets binding. Env and the runtime's
// types come from `npm run worker:types` (worker-configuration.d.ts, from wrangler.toml).
import { createEdge, type BodySource, type EdgeDecision, type EdgeRequest } from '../edge/core.ts';
import { encodeBody, type Bytes } from '../edge/encode.ts';
import type { Encoding } from '../edge/negotiation.ts';
import { tokenDigests } from '../edge/tokens.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';
import { manifestSchema, type Manifest } from '../schema/manifest.ts';
import { createHash } from 'node:crypto';

interface Isolate {
  manifest: Manifest;
  decide: (request: EdgeRequest) => EdgeDecision;
  /** Bodies by source and encoding, made once per isolate. */
  bodies: Map<string, Promise<Bytes>>;
}

let isolate: Promise<Isolate> | undefined;

async function assetBytes(env: Env, origin: string, path: string): Promise<Bytes> {
  const response = await env.ASSETS.fetch(`${origin}/${path}`);
  if (!response.ok) throw new Error(`${path} is missing from the deployed assets (${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

async function startIsolate(env: Env, origin: string): Promise<Isolate> {
  const manifest = manifestSchema.parse(
    JSON.parse(new TextDecoder().decode(await assetBytes(env, origin, MANIFEST_FILE))),
  );
  const decide = createEdge({ manifest, tokenDigests: tokenDigests(env) });
  return { manifest, decide, bodies: new Map() };
}

function bodyBytes(env: Env, origin: string, state: Isolate, source: BodySource, encoding: Encoding): Promise<Bytes> {
  // A merged body is made for one request: compressed on the spot, never kept.
  if ('merged' in source)
    return Promise.resolve(encodeBody(new Uint8Array(new TextEncoder().encode(source.merged)), encoding, 'quick'));
  const key = `${'file' in source ? `file:${source.file}` : `text:${source.text}`}:${encoding}`;
  let bytes = state.bodies.get(key);
  if (!bytes) {
    bytes = (async () => {
      if (!('file' in source))
        return encodeBody(new Uint8Array(new TextEncoder().encode(source.text)), encoding, 'best');
      const identity = await assetBytes(env, origin, source.file);
      const expected = state.manifest.files[source.file];
      // An asset that does not match the manifest it was deployed with is never served.
      if (createHash('sha256').update(identity).digest('hex') !== expected?.sha256)
        throw new Error(`${source.file} does not match the manifest`);
      return encodeBody(identity, encoding, 'best');
    })();
    bytes.catch(() => state.bodies.delete(key));
    state.bodies.set(key, bytes);
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
    let decision = state.decide({ method: request.method, url, header });
    if (decision.type === 'static') return env.ASSETS.fetch(request);
    if (decision.type === 'lookup') {
      const files = decision.files.map((file) => bodyBytes(env, url.origin, state, { file }, 'identity'));
      decision = decision.answer((await Promise.all(files)).map((bytes) => new TextDecoder().decode(bytes)));
    }
    const headers = new Headers(decision.headers);
    let body: Bytes | null = null;
    if (decision.body) {
      const bytes = await bodyBytes(env, url.origin, state, decision.body, decision.encoding);
      headers.set('Content-Length', String(bytes.length));
      if (!decision.omitBody) body = bytes;
    }
    // The bytes are already encoded as Content-Encoding says: the runtime must not encode again.
    return new Response(body, { status: decision.status, headers, encodeBody: 'manual' });
  },
} satisfies ExportedHandler<Env>;
