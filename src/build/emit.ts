// Writes the prebuilt API below dist/api/: each distinct body once, as a container of its
// identity bytes and its br (quality 11; 9 past 1 MiB) and gzip (level 9) variants named by its SHA-256
// (src/contract/body-container.ts), every scope's routing index (route -> body), the pack of
// all bodies for the Node server, the build's manifest, and the list of what the Worker
// deployment leaves out. Compression happens here, once per distinct body, so no runtime
// compresses a stored body.
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { packBody } from '../contract/body-container.ts';
import { ASSETS_IGNORE_FILE, NOT_DEPLOYED, PACK_FILE } from '../contract/build-files.ts';
import { MANIFEST_FILE, storedBodyPath } from '../contract/paths.ts';
import type { BuildManifest, ManifestFile } from '../schema/manifest.ts';
import type { ApiRoute } from './api-route.ts';
import { type ApiScope, manifestReleases, publishedScopes } from './api.ts';
import { type Content, countsOf } from './content.ts';
import type { Release } from './releases.ts';
import { sha256HexSync } from './hash.ts';
import { indexFiles } from './route-index.ts';
import type { NearShardsOf } from './suggest-index.ts';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Bodies past this size are compressed at brotli quality 9, not 11. Quality 11 costs about
 * 3 s of CPU per MiB: the 2.9 MB list of 10,000 trees took 9.4 s at 11 (76 KB) and 0.13 s
 * at 9 (99 KB), and every release that changes a record makes its kind's list anew. The
 * answers players ask for (a name, a level, a suggestion) are all far below it.
 */
const LARGE_BODY_BYTES = 1024 * 1024;

/** The brotli quality a body of `byteLength` bytes is compressed at. */
export const brotliQuality = (byteLength: number): number => (byteLength > LARGE_BODY_BYTES ? 9 : 11);

/** br at quality 11 (9 for a large body), with a window no larger than the body needs (same bytes, less memory). */
function brotli(bytes: Buffer): Promise<Buffer> {
  const window = Math.min(24, Math.max(10, Math.ceil(Math.log2(bytes.length + 1))));
  return brotliAsync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: brotliQuality(bytes.length),
      [constants.BROTLI_PARAM_LGWIN]: window,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

const EMPTY = new Uint8Array(0);

/**
 * Runs `work` over `items` with at most `limit` running at once (zlib's thread pool does the
 * compressing, so the cores work in parallel). The first failure stops new work and is thrown
 * once the running ones have settled.
 */
async function forEachConcurrently<T>(items: Iterable<T>, limit: number, work: (item: T) => Promise<void>) {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  for (const item of items) {
    if (failure) break;
    const task: Promise<void> = work(item).then(
      () => void running.delete(task),
      (error: unknown) => {
        running.delete(task);
        failure ??= { error };
      },
    );
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}

/** The pack of a build: every stored body once, one after another, as the bodies are made. */
class PackWriter {
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  private size = 0;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
  }

  append(bytes: Uint8Array): void {
    writeSync(this.fd, bytes);
    this.hash.update(bytes);
    this.size += bytes.length;
  }

  /** Closes the file; its manifest entry. */
  close(): ManifestFile {
    closeSync(this.fd);
    return { sha256: this.hash.digest('hex'), size: this.size };
  }
}

/** What emitting the API wrote, for the build's log and its manifest. */
export interface EmittedApi {
  manifest: BuildManifest;
  /** Routes over all scopes, distinct bodies stored, and files of the routing index. */
  routes: number;
  bodies: number;
  indexFiles: number;
}

/**
 * Stores every body of `scopes` once below `outDir` (compressing each new one in parallel
 * across the cores), writes each scope's routing index, and returns the routes -> body maps.
 */
async function storeScopes(scopes: readonly ApiScope[], outDir: string, pack: PackWriter) {
  const madeDirs = new Set<string>();
  const write = (path: string, bytes: Uint8Array | string) => {
    const target = join(outDir, path);
    const dir = dirname(target);
    if (!madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      madeDirs.add(dir);
    }
    writeFileSync(target, bytes);
  };
  /** By the identity's SHA-256 (and whether it is index-only): the stored body's name, once known. */
  const stored = new Map<string, Promise<string>>();
  // Bodies join the pack in the order they were first met, so two builds write the same pack.
  let packed = Promise.resolve();
  const store = ({ body, indexOnly }: ApiRoute): Promise<string> => {
    const identity = Buffer.from(body, 'utf8');
    const key = `${sha256HexSync(identity)}${indexOnly ? 'i' : ''}`;
    let name = stored.get(key);
    if (!name) {
      const container = indexOnly
        ? Promise.resolve(packBody({ identity, br: EMPTY, gzip: EMPTY }))
        : Promise.all([brotli(identity), gzipAsync(identity, { level: 9 })]).then(([br, gz]) =>
            packBody({ identity, br, gzip: gz }),
          );
      const joined = packed.then(async () => pack.append(await container));
      packed = joined;
      name = Promise.all([container, joined]).then(([bytes]) => {
        const digest = sha256HexSync(bytes);
        write(storedBodyPath(digest), bytes);
        return digest;
      });
      stored.set(key, name);
    }
    return name;
  };
  let routeCount = 0;
  let indexCount = 0;
  try {
    for (const scope of scopes) {
      const routes = new Map<string, string>();
      await forEachConcurrently(scope.routes, availableParallelism() * 2, async (route) => {
        // Set in order first, so the index lists routes in the order they were made.
        routes.set(route.route, '');
        routes.set(route.route, await store(route));
      });
      routeCount += routes.size;
      for (const file of indexFiles(scope.release, scope.version, routes)) {
        write(file.path, file.text);
        indexCount++;
      }
    }
  } finally {
    await packed.catch(() => undefined);
  }
  return { routes: routeCount, bodies: stored.size, indexFiles: indexCount };
}

/**
 * Writes the API of the content and its releases below `outDir`; returns what it wrote.
 * `nearShardsOf`: the build's near-miss shards (src/build/suggest-index.ts), made here by default.
 */
export async function emitApi(
  content: Content,
  outDir: string,
  releases: readonly Release[] = [],
  nearShardsOf?: NearShardsOf,
): Promise<EmittedApi> {
  const pack = new PackWriter(join(outDir, PACK_FILE));
  let packEntry: ManifestFile | undefined;
  let counts: Awaited<ReturnType<typeof storeScopes>>;
  try {
    counts = await storeScopes(publishedScopes(content, releases, nearShardsOf), outDir, pack);
  } finally {
    // Settles the file whatever happened; a failed build's pack is never listed in a manifest.
    packEntry = pack.close();
  }
  const manifest: BuildManifest = {
    version: content.version,
    counts: countsOf(content),
    releases: manifestReleases(releases),
    pack: { ...packEntry, bodies: counts.bodies },
  };
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
  writeFileSync(join(outDir, ASSETS_IGNORE_FILE), `${NOT_DEPLOYED.join('\n')}\n`);
  return { manifest, ...counts };
}
