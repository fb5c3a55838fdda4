// The offline client: a bundle (.tar.gz or .zip) checked file by file against its manifest,
// then answered through the edge's own resolver (src/contract/resolve.ts) over the bundle's
// copy of the routing index, so it answers every search and suggestion exactly as the API does.
import { RELEASE_NOT_FOUND_BODY } from '../contract/messages.ts';
import { bundledBodyPath, rootPath, shardPath } from '../contract/paths.ts';
import { type ApiQuery, resolve, type RouteIndex } from '../contract/resolve.ts';
import { checkRoot, type IndexShard } from '../contract/route-index.ts';
import type { Suggestion } from '../contract/suggest.ts';
import { kindIds, type KindId } from '../schema/kind-ids.ts';
import { manifestSchema, type Manifest } from '../schema/manifest.ts';
import { readArchive, type ArchiveFiles } from './archive.ts';
import { BUNDLE_MANIFEST, dataPath } from '../contract/bundle-layout.ts';
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

/** The bundle's routing index and bodies, as the resolver reads them. */
export function bundleIndex(files: ArchiveFiles): RouteIndex {
  return {
    root(release) {
      const path = rootPath(release);
      return files.has(path) ? checkRoot(readJson(files, path), path) : undefined;
    },
    shard: (release, n) => readJson(files, shardPath(release, n)) as IndexShard,
    text: (body) => readText(files, bundledBodyPath(body)),
  };
}

/**
 * The text the API answers a query with, byte for byte, from the bundle (its release's data
 * with `release`), and its status; undefined for a release the bundle does not hold.
 */
export async function answerText(
  files: ArchiveFiles,
  query: ApiQuery,
): Promise<{ status: 200 | 404; text: string; path?: string } | undefined> {
  const resolved = await resolve(bundleIndex(files), query);
  if (resolved.type === 'unknown-release') return undefined;
  if (resolved.type === 'made') return { status: 200, text: resolved.text };
  const path = bundledBodyPath(resolved.body);
  return { status: resolved.status, text: readText(files, path), path };
}

/**
 * Opens a bundle from a path (Node) or its bytes, verifies it and returns a client over it;
 * with `release`, over that data release's answers, as the API's `release=` gives them.
 */
export async function openBundle(
  source: string | Uint8Array | ArrayBuffer,
  { release }: ReleaseOption = {},
): Promise<BundleClient> {
  const { version, counts, files } = await verifyBundle(await bytesOf(source));
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
  return new Uint8Array(await readFile(source));
}

/**
 * Reads an archive and checks it: manifest present and valid, every listed file present
 * with its size and sha256, no file that the manifest does not list, and the counts of
 * the manifest matching the data. Throws a BundleError naming the first file at fault.
 */
export async function verifyBundle(archive: Uint8Array): Promise<VerifiedBundle> {
  const files = await readArchive(archive);
  const manifest = readManifest(files);
  files.delete(BUNDLE_MANIFEST);
  for (const path of files.keys()) {
    if (!(path in manifest.files))
      throw new BundleError(`The bundle holds ${path}, which its manifest does not list.`, path);
  }
  await Promise.all(Object.entries(manifest.files).map(([path, expected]) => checkFile(files, path, expected)));
  for (const kind of kindIds) checkCount(files, kind, manifest.counts[kind]);
  return { version: manifest.version, counts: manifest.counts, releases: manifest.releases, files };
}

function readManifest(files: ArchiveFiles): Manifest {
  if (!files.has(BUNDLE_MANIFEST))
    throw new BundleError(`Not a bundle: ${BUNDLE_MANIFEST} is missing.`, BUNDLE_MANIFEST);
  const result = manifestSchema.safeParse(readJson(files, BUNDLE_MANIFEST));
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
  const actual = await sha256Hex(bytes);
  if (bytes.length !== expected.size || actual !== expected.sha256) {
    throw new BundleError(
      `${path} does not match the bundle manifest (sha256 ${actual}, ${bytes.length} bytes; ` +
        `expected ${expected.sha256}, ${expected.size} bytes): the bundle was changed or damaged.`,
      path,
    );
  }
}

function checkCount(files: ArchiveFiles, kind: KindId, expected: number | undefined): void {
  const path = dataPath(kind);
  const records = readJson(files, path);
  const count = Array.isArray(records) ? records.length : undefined;
  if (count === undefined || count !== expected) {
    throw new BundleError(
      `${path} holds ${count ?? 'no list of'} records; the manifest counts ${expected ?? 'none'}.`,
      path,
    );
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

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
