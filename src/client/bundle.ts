// The offline client: a bundle (.tar.gz or .zip), read as untrusted input (src/client/archive.ts),
// checked against the SHA-256 the site published for it when given one, and file by file against
// its manifest, then answered through the edge's own resolver (src/contract/resolve.ts) over the bundle's
// routes and bodies, so it answers every search and suggestion exactly as the API does.
import { RELEASE_NOT_FOUND_BODY } from '../contract/messages.ts';
import { isJsonObject } from '../contract/json-object.ts';
import { type ApiQuery, resolve, type RouteIndex } from '../contract/resolve.ts';
import { type IndexRoot, type IndexShard, NEAR_GROUP_LENGTH } from '../contract/route-index.ts';
import type { Suggestion } from '../contract/suggest.ts';
import { kindIds, type KindId } from '../schema/kind-ids.ts';
import { manifestSchema, type Manifest } from '../schema/manifest.ts';
import { type ArchiveFiles, type ArchiveGate, readArchive } from './archive.ts';
import { BUNDLE_BODIES, BUNDLE_MANIFEST, bundleIndexPath, dataPath } from '../contract/bundle-layout.ts';
import { checkArchiveDigest, sha256Digest, sha256Of } from './digest.ts';
import { BundleError, NotFoundError } from './errors.ts';
import type { Counts } from './records.ts';
import { dataClient, type Envelope, type ReleaseOption, type TreefarmData } from './types.ts';

export interface VerifiedBundle {
  version: string;
  counts: Counts;
  /** The data releases the bundle holds, newest first: id and data version. */
  releases: { id: string; version: string }[];
  /** Every file but the manifest, each checked against it. */
  files: ArchiveFiles;
}

export type BundleClient = TreefarmData & { version: string; counts: Counts };

/** What the bundle must be, beyond matching its own manifest. */
export interface DigestOption {
  /**
   * The archive's SHA-256 as the site publishes it (downloads/latest.json, the Downloads page;
   * publishedSha256 reads it), 64 hexadecimal digits: any other archive is refused. The
   * manifest inside a bundle shows it is undamaged; only this shows it is the file published.
   */
  sha256?: string;
}

export type BundleOptions = ReleaseOption & DigestOption;

/** One scope of the bundle as the resolver reads it: all its routes in one shard. */
interface BundleScope {
  root: IndexRoot;
  routes: IndexShard;
}

const indexes = new WeakMap<ArchiveFiles, RouteIndex>();

/**
 * The bundle's routes and bodies as the resolver reads them (src/contract/bundle-layout.ts),
 * each file parsed once, when first needed: every scope is one shard of all its routes, a
 * release's made from the current data's with the routes it changed.
 */
export function bundleIndex(files: ArchiveFiles): RouteIndex {
  const known = indexes.get(files);
  if (known) return known;
  const scopes = new Map<string | undefined, BundleScope | undefined>();
  let bodies: string[] | undefined;
  const scopeOf = (release: string | undefined): BundleScope | undefined => {
    if (!scopes.has(release))
      scopes.set(
        release,
        readScope(files, release, () => shard(undefined)),
      );
    return scopes.get(release);
  };
  const shard = (release: string | undefined): IndexShard => {
    const scope = scopeOf(release);
    if (!scope) throw new BundleError(`The bundle lacks ${bundleIndexPath(release)}.`, bundleIndexPath(release));
    return scope.routes;
  };
  const index: RouteIndex = {
    root: (release) => scopeOf(release)?.root,
    shard,
    text(body) {
      bodies ??= readText(files, BUNDLE_BODIES).split('\n');
      const line = Number(body);
      // The file ends with a line break, so its last element is the empty string after it. Any
      // other number than a line's (0, negative, fractional, NaN) finds no element either.
      const text = line < bodies.length ? bodies[line - 1] : undefined;
      if (text === undefined)
        throw new BundleError(`The bundle's index names body ${body}, which ${BUNDLE_BODIES} lacks.`, BUNDLE_BODIES);
      return text;
    },
  };
  indexes.set(files, index);
  return index;
}

/** A scope's index file, checked; a release's routes completed from the current data's. */
function readScope(
  files: ArchiveFiles,
  release: string | undefined,
  currentRoutes: () => IndexShard,
): BundleScope | undefined {
  const path = bundleIndexPath(release);
  if (!files.has(path)) {
    if (release === undefined) throw new BundleError(`The bundle lacks ${path}.`, path);
    return undefined;
  }
  const value = readJson(files, path) as { version?: unknown; routes?: unknown };
  const routes = value.routes;
  if (typeof value.version !== 'string' || !isJsonObject(routes))
    throw new BundleError(`${path} is not the index of a bundle: it needs a version and routes.`, path);
  const root = { version: value.version, shards: 1, nearGroup: NEAR_GROUP_LENGTH };
  for (const [route, body] of Object.entries(routes))
    if (typeof body !== 'string' && (release === undefined || body !== null))
      throw new BundleError(`${path} routes ${route} to ${JSON.stringify(body)}, which names no body.`, path);
  if (release === undefined) return { root, routes: routes as IndexShard };
  const merged: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, currentRoutes());
  for (const [route, body] of Object.entries(routes as Record<string, string | null>)) {
    if (body === null) delete merged[route];
    else merged[route] = body;
  }
  return { root, routes: merged };
}

/**
 * The text the API answers a query with, byte for byte, from the bundle (its release's data
 * with `release`), and its status; undefined for a release the bundle does not hold.
 */
export async function answerText(
  files: ArchiveFiles,
  query: ApiQuery,
): Promise<{ status: 200 | 404; text: string; path?: string } | undefined> {
  const index = bundleIndex(files);
  const resolved = await resolve(index, query);
  if (resolved.type === 'unknown-release') return undefined;
  if (resolved.type === 'made') return { status: 200, text: resolved.text };
  return { status: resolved.status, text: await index.text(resolved.body), path: bodyLinePath(resolved.body) };
}

/** How errors name a body of the bundle: its file and line. */
export const bodyLinePath = (body: string) => `${BUNDLE_BODIES} line ${body}`;

/**
 * Opens a bundle from a path (Node) or its bytes, verifies it and returns a client over it;
 * with `release`, over that data release's answers, as the API's `release=` gives them.
 */
export async function openBundle(
  source: string | Uint8Array | ArrayBuffer,
  { release, sha256 }: BundleOptions = {},
): Promise<BundleClient> {
  const { version, counts, files } = await verifyBundle(await bytesOf(source), { sha256 });
  const envelopeOf = (answer: { text: string; path?: string }) =>
    parseJson(answer.text, answer.path ?? 'A suggestion made from the bundle') as Envelope;
  const ask = async (kind: KindId, suggest: boolean, search: string | null) => {
    const answer = await answerText(files, { endpoint: kind, suggest, search, release: release ?? null });
    if (!answer) throw new NotFoundError((JSON.parse(RELEASE_NOT_FOUND_BODY) as Envelope).message, kind, search);
    const envelope = envelopeOf(answer);
    if (answer.status === 404) throw new NotFoundError(envelope.message, kind, search);
    return envelope.data ?? [];
  };
  const releases = async () => {
    const answer = await answerText(files, { endpoint: 'releases', suggest: false, search: null, release: null });
    return answer ? (envelopeOf(answer).data ?? []) : [];
  };
  const client = dataClient(
    (kind, search) => ask(kind, false, search),
    async (kind, text) => (await ask(kind, true, text)) as Suggestion[],
    releases,
  );
  return { ...client, version, counts };
}

async function bytesOf(source: string | Uint8Array | ArrayBuffer): Promise<Uint8Array> {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  // Imported here, so the client also runs where there is no file system (given bytes).
  const { readFile } = await import('node:fs/promises');
  try {
    return new Uint8Array(await readFile(source));
  } catch (error) {
    // A missing or unreadable file is the caller's mistake: one line naming it, as every bundle error.
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : message;
    throw new BundleError(`Cannot read the bundle ${source}: ${reason}`, source);
  }
}

/**
 * Checks an archive and reads it: its SHA-256 when `sha256` is given (before anything is
 * inflated), then manifest present and valid (read first where the format allows: a zip's
 * before any other file is inflated), no file that the manifest does not list or that has
 * another size than it lists (each refused before its bytes are read), every listed file
 * present with its sha256, and the counts of the manifest matching the data. Throws a
 * BundleError naming the first file at fault.
 */
export async function verifyBundle(archive: Uint8Array, { sha256 }: DigestOption = {}): Promise<VerifiedBundle> {
  if (sha256 !== undefined) await checkArchiveDigest(archive, sha256Digest(sha256, 'The sha256 option'));
  const gate = manifestGate();
  const files = await readArchive(archive, gate);
  const manifest = gate.manifest();
  files.delete(BUNDLE_MANIFEST);
  // One file at a time: where hashing copies the bytes (Web Crypto), the copies never add up.
  for (const [path, expected] of Object.entries(manifest.files)) await checkFile(files, path, expected);
  for (const kind of kindIds) checkCount(files, kind, manifest.counts[kind]);
  return { version: manifest.version, counts: manifest.counts, releases: manifest.releases, files };
}

/** The bundle's manifest as the archive's gate: every other file checked against it before it is read. */
function manifestGate(): ArchiveGate & { manifest(): Manifest } {
  let read: Manifest | undefined;
  return {
    key: BUNDLE_MANIFEST,
    open(bytes) {
      const manifest = readManifest(bytes);
      read = manifest;
      // A Map, so a path such as "constructor" or "__proto__" is listed only if the manifest lists it.
      const listed = new Map(Object.entries(manifest.files));
      return (path, size) => {
        const expected = listed.get(path);
        if (!expected) throw new BundleError(`The bundle holds ${path}, which its manifest does not list.`, path);
        if (size !== expected.size)
          throw new BundleError(
            `${path} does not match the bundle manifest (${size} bytes; expected ${expected.size} bytes): ` +
              'the bundle was changed or damaged.',
            path,
          );
      };
    },
    manifest() {
      if (!read) throw manifestMissing();
      return read;
    },
  };
}

const manifestMissing = () => new BundleError(`Not a bundle: ${BUNDLE_MANIFEST} is missing.`, BUNDLE_MANIFEST);

function readManifest(bytes: Uint8Array | undefined): Manifest {
  if (!bytes) throw manifestMissing();
  const result = manifestSchema.safeParse(parseJson(new TextDecoder().decode(bytes), BUNDLE_MANIFEST));
  if (!result.success)
    throw new BundleError(
      `${BUNDLE_MANIFEST} is not a bundle manifest: ${result.error.issues[0]?.message}`,
      BUNDLE_MANIFEST,
    );
  return result.data;
}

async function checkFile(files: ArchiveFiles, path: string, expected: Manifest['files'][string]): Promise<void> {
  const bytes = files.get(path);
  if (!bytes) throw new BundleError(`The bundle lacks ${path}, which its manifest lists.`, path);
  const actual = await sha256Of(bytes);
  if (bytes.length !== expected.size || actual !== expected.sha256) {
    throw new BundleError(
      `${path} does not match the bundle manifest (sha256 ${actual}, ${bytes.length} bytes; ` +
        `expected ${expected.sha256}, ${expected.size} bytes): the bundle was changed or damaged.`,
      path,
    );
  }
}

function checkCount(files: ArchiveFiles, kind: KindId, expected: number): void {
  const path = dataPath(kind);
  const records = readJson(files, path);
  const count = Array.isArray(records) ? records.length : undefined;
  if (count !== expected) {
    throw new BundleError(`${path} holds ${count ?? 'no list of'} records; the manifest counts ${expected}.`, path);
  }
}

function readText(files: ArchiveFiles, path: string): string {
  const bytes = files.get(path);
  if (!bytes) throw new BundleError(`The bundle lacks ${path}.`, path);
  return new TextDecoder().decode(bytes);
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BundleError(`${path} is not valid JSON: ${(error as Error).message}`, path);
  }
}

function readJson(files: ArchiveFiles, path: string): unknown {
  return parseJson(readText(files, path), path);
}
