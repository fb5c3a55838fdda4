// The API bodies of one build, held in memory: every API file and its br and gzip variants,
// and the files of the suggestion index, as the build wrote them: the bodies read once from
// the build's pack (src/contract/pack.ts: one file rather than three per API file), the index
// files one by one, each checked against the manifest's sha256 and size. Nothing is
// compressed here. A build that does not match its manifest is refused whole, naming the
// file, so a server never mixes versions.
import { hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { PACK_FILE, packLayout, partEntry, type PackedPart } from '../contract/pack.ts';
import { compressedPath, MANIFEST_FILE } from '../contract/paths.ts';
import type { Encoding } from '../edge/negotiation.ts';
import { buildManifestSchema, type BuildManifest, type ManifestFile } from '../schema/manifest.ts';

export class DistError extends Error {
  override name = 'DistError';
}

/** Where each encoding of an API file starts in the pack. */
type Offsets = Record<Encoding, number>;

export interface BodyStore {
  manifest: BuildManifest;
  /** The bytes of an API file of this build in one encoding. */
  bytes(file: string, encoding: Encoding): Buffer;
  /** A file of the build's suggestion index (manifest.index), as text. */
  indexText(file: string): string;
}

export async function readManifest(distDir: string): Promise<BuildManifest> {
  const path = join(distDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new DistError(`${path} is missing: run npm run build first.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DistError(`${path} is not valid JSON (${(error as Error).message}): rebuild with npm run build.`);
  }
  const result = buildManifestSchema.safeParse(json);
  if (!result.success)
    throw new DistError(
      `${path} is not a build manifest (${result.error.issues[0]?.message}): rebuild with npm run build.`,
    );
  return result.data;
}

/** Bytes of the pack read, and parts of it checked, between turns of the event loop (a reload never stalls serving). */
const READ_BYTES_PER_TURN = 8 * 1024 * 1024;
const PARTS_PER_TURN = 512;

/** A file the manifest lists and dist/ lacks. */
const missingFile = (path: string, distDir: string) =>
  new DistError(`${path} is missing; the build in ${distDir} is incomplete: rebuild with npm run build.`);

/**
 * Throws unless `bytes` are what the manifest entry says (size and sha256); `name()` says what
 * they are, and is worked out only for the error.
 */
function checkBytes(bytes: Buffer, expected: ManifestFile, name: () => string): void {
  const digest = hash('sha256', bytes, 'hex');
  if (bytes.length === expected.size && digest === expected.sha256) return;
  throw new DistError(
    `${name()} does not match the manifest (${bytes.length} bytes, sha256 ${digest.slice(0, 12)}…; ` +
      `expected ${expected.size} bytes, ${expected.sha256.slice(0, 12)}…): it is corrupted or from another build.`,
  );
}

/**
 * The pack of the build in `distDir`, read whole with a few sequential reads, each between
 * turns of the event loop. One byte more than the manifest's size is asked for, so that a
 * longer pack shows.
 */
async function readPack(distDir: string, expected: ManifestFile): Promise<Buffer> {
  const path = join(distDir, PACK_FILE);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw missingFile(path, distDir);
  }
  try {
    // No more than the file holds, whatever size a damaged manifest gives.
    const bytes = Buffer.allocUnsafeSlow(Math.min(fstatSync(fd).size, expected.size + 1));
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

/** Checks a part of the pack against its manifest entry; the error names the file it stands for. */
function checkPart(distDir: string, pack: Buffer, { file, part, offset, expected }: PackedPart): void {
  checkBytes(pack.subarray(offset, offset + expected.size), expected, () => {
    const path = join(distDir, part === 'identity' ? file : compressedPath(file, part));
    return `${path} (packed in ${join(distDir, PACK_FILE)})`;
  });
}

/** The files of the suggestion index, each read whole and checked against its manifest entry. */
async function readIndex(distDir: string, files: BuildManifest['index']): Promise<Map<string, Buffer>> {
  const index = new Map<string, Buffer>();
  for (const [path, expected] of Object.entries(files)) {
    const fullPath = join(distDir, path);
    let bytes: Buffer;
    try {
      bytes = readFileSync(fullPath);
    } catch {
      throw missingFile(fullPath, distDir);
    }
    checkBytes(bytes, expected, () => fullPath);
    index.set(path, bytes);
    await yieldToEventLoop();
  }
  return index;
}

/**
 * Reads every API file of the build in `distDir` and its variants from the pack, each checked
 * against the manifest. The reads and checks run in short stretches between turns of the
 * event loop, so requests keep being served during a reload.
 */
export async function loadBodyStore(distDir: string): Promise<BodyStore> {
  const manifest = await readManifest(distDir);
  const pack = await readPack(distDir, manifest.pack);
  // Parts past the end of a short pack come out short, and fail their check. Only offsets are
  // kept: a Buffer object per part (600k at 100k records) would cost time and memory.
  const offsets = new Map<string, Offsets>();
  let sinceYield = 0;
  for (const packed of packLayout(manifest.files)) {
    checkPart(distDir, pack, packed);
    // Every part of a file is set here; the first one read stands in for the others until then.
    const at = offsets.get(packed.file) ?? { identity: packed.offset, br: packed.offset, gzip: packed.offset };
    at[packed.part] = packed.offset;
    offsets.set(packed.file, at);
    if (++sinceYield === PARTS_PER_TURN) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  // Checked last, so a pack of another build is named by the first file that differs.
  if (pack.length > manifest.pack.size)
    throw new DistError(
      `${join(distDir, PACK_FILE)} is longer than the manifest says (${manifest.pack.size} bytes): ` +
        'it is corrupted or from another build.',
    );
  const index = await readIndex(distDir, manifest.index);
  return {
    manifest,
    bytes(file, encoding) {
      const at = offsets.get(file)?.[encoding];
      const entry = manifest.files[file];
      if (at === undefined || !entry) throw new DistError(`${file} is not an API file of this build`);
      return pack.subarray(at, at + partEntry(entry, encoding).size);
    },
    indexText(file) {
      const bytes = index.get(file);
      if (!bytes) throw new DistError(`${file} is not an index file of this build`);
      return bytes.toString('utf8');
    },
  };
}
