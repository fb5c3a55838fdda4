// One build held in memory for the Node server: its manifest (the summary), every stored body
// read once from the build's pack (src/contract/build-files.ts: one file rather than one per
// body), each checked against its SHA-256, and the routing index of every scope. Every body a
// route names must be in the pack and match its name: a build that does not is refused whole,
// naming the file, so a server never mixes versions or sends a damaged body.
import { hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type BodyLayout, bodyLayout, containerLength } from '../contract/body-container.ts';
import { PACK_FILE } from '../contract/build-files.ts';
import { INDEX_DIR, MANIFEST_FILE, rootPath, shardPath, storedBodyPath } from '../contract/paths.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { checkRoot, type IndexRoot, type IndexShard } from '../contract/route-index.ts';
import type { Encoding } from '../edge/negotiation.ts';
import { buildManifestSchema, type BuildManifest } from '../schema/manifest.ts';

export class DistError extends Error {
  override name = 'DistError';
}

export interface BodyStore {
  manifest: BuildManifest;
  /** The routing index, read from memory. */
  index: RouteIndex;
  /** The bytes of a stored body of this build in one encoding. */
  bytes(stored: string, encoding: Encoding): Buffer;
}

async function readJson(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new DistError(`${path} is missing: run npm run build first.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DistError(`${path} is not valid JSON (${(error as Error).message}): ${what}`);
  }
}

export async function readManifest(distDir: string): Promise<BuildManifest> {
  const path = join(distDir, MANIFEST_FILE);
  const result = buildManifestSchema.safeParse(await readJson(path, 'rebuild with npm run build.'));
  if (!result.success)
    throw new DistError(
      `${path} is not a build manifest (${result.error.issues[0]?.message}): rebuild with npm run build.`,
    );
  return result.data;
}

/** Bytes of the pack read, and bodies checked, between turns of the event loop (a reload never stalls serving). */
const READ_BYTES_PER_TURN = 8 * 1024 * 1024;
const BODIES_PER_TURN = 512;

/**
 * The pack of the build in `distDir`, read whole with a few sequential reads, each between
 * turns of the event loop. One byte more than the manifest's size is asked for, so that a
 * longer pack shows.
 */
async function readPack(distDir: string, expectedSize: number): Promise<Buffer> {
  const path = join(distDir, PACK_FILE);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new DistError(`${path} is missing; the build in ${distDir} is incomplete: rebuild with npm run build.`);
  }
  try {
    // No more than the file holds, whatever size a damaged manifest gives.
    const bytes = Buffer.allocUnsafeSlow(Math.min(fstatSync(fd).size, expectedSize + 1));
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, Math.min(READ_BYTES_PER_TURN, bytes.length - filled), null);
      if (read === 0) break;
      filled += read;
      await yieldToEventLoop();
    }
    return bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** A stored body in the pack: where its container starts, and its parts' places in the pack. */
type Placed = BodyLayout;

/** Walks the pack's containers, hashing each: its bodies by their SHA-256, with their places. */
async function placeBodies(distDir: string, pack: Buffer, manifest: BuildManifest): Promise<Map<string, Placed>> {
  const packPath = join(distDir, PACK_FILE);
  if (pack.length !== manifest.pack.size)
    throw new DistError(
      `${packPath} is ${pack.length > manifest.pack.size ? 'longer' : 'shorter'} than the manifest says ` +
        `(${manifest.pack.size} bytes): it is corrupted or from another build.`,
    );
  const placed = new Map<string, Placed>();
  let offset = 0;
  let sinceYield = 0;
  while (offset < pack.length) {
    // A container's header says how long it is; read it from the rest of the pack.
    const length = containerLength(pack.subarray(offset));
    if (length === undefined || offset + length > pack.length)
      throw new DistError(`${packPath} is damaged at byte ${offset}: rebuild with npm run build.`);
    const container = pack.subarray(offset, offset + length);
    const layout = bodyLayout(container, packPath);
    const at = (range: readonly [number, number]) => [offset + range[0], offset + range[1]] as const;
    placed.set(hash('sha256', container, 'hex'), {
      identity: at(layout.identity),
      br: at(layout.br),
      gzip: at(layout.gzip),
    });
    offset += length;
    if (++sinceYield === BODIES_PER_TURN) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return placed;
}

/** One scope's index: its root and its shards, parsed. */
interface Scope {
  root: IndexRoot;
  shards: IndexShard[];
}

/** Reads the index of one scope, checking that every body it names is in the pack. */
async function readScope(
  distDir: string,
  release: string | undefined,
  placed: ReadonlyMap<string, Placed>,
): Promise<Scope> {
  const rootFile = join(distDir, rootPath(release));
  let root: IndexRoot;
  try {
    root = checkRoot(await readJson(rootFile, 'rebuild with npm run build.'), rootFile);
  } catch (error) {
    if (error instanceof DistError) throw error;
    throw new DistError(`${(error as Error).message} Rebuild with npm run build.`);
  }
  const shards: IndexShard[] = [];
  for (let n = 0; n < root.shards; n++) {
    const file = join(distDir, shardPath(release, n));
    const shard = (await readJson(file, 'rebuild with npm run build.')) as IndexShard;
    for (const route in shard) {
      const body = shard[route] ?? '';
      if (!placed.has(body))
        throw new DistError(
          `${join(distDir, storedBodyPath(body))} is not in ${join(distDir, PACK_FILE)}, or its bytes there do not ` +
            `match its SHA-256 (route ${route} of ${file} names it): the build is corrupted or mixed with another: ` +
            'rebuild with npm run build.',
        );
    }
    shards.push(shard);
  }
  return { root, shards };
}

/** The releases whose index the build holds. */
function releasesBelow(distDir: string): string[] {
  const dir = join(distDir, INDEX_DIR, 'releases');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * Reads every stored body of the build in `distDir` from its pack, checks each against its
 * SHA-256, and reads the routing index of every scope. The reads and checks run in short
 * stretches between turns of the event loop, so requests keep being served during a reload.
 */
export async function loadBodyStore(distDir: string): Promise<BodyStore> {
  const manifest = await readManifest(distDir);
  const pack = await readPack(distDir, manifest.pack.size);
  const placed = await placeBodies(distDir, pack, manifest);
  const scopes = new Map<string | undefined, Scope>();
  scopes.set(undefined, await readScope(distDir, undefined, placed));
  for (const release of releasesBelow(distDir)) {
    scopes.set(release, await readScope(distDir, release, placed));
    await yieldToEventLoop();
  }
  const bytes = (stored: string, encoding: Encoding): Buffer => {
    const place = placed.get(stored)?.[encoding];
    if (!place) throw new DistError(`${storedBodyPath(stored)} is not a stored body of this build`);
    return pack.subarray(place[0], place[1]);
  };
  const index: RouteIndex = {
    root: (release) => scopes.get(release)?.root,
    shard(release, n) {
      const shard = scopes.get(release)?.shards[n];
      if (!shard) throw new DistError(`${shardPath(release, n)} is not in this build`);
      return shard;
    },
    text: (stored) => bytes(stored, 'identity').toString('utf8'),
  };
  return { manifest, index, bytes };
}
