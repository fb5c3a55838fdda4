// The API bodies of one build, held in memory: read once from dist/, each checked against
// the manifest's sha256 and size, with br and gzip variants made once. A build that does not
// match its manifest is refused whole, naming the file, so a server never mixes versions.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { FIXED_BODIES } from '../contract/messages.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';
import type { BodySource } from '../edge/core.ts';
import { encodeBody } from '../edge/encode.ts';
import type { Encoding } from '../edge/negotiation.ts';
import { manifestSchema, type Manifest } from '../schema/manifest.ts';

export class DistError extends Error {
  override name = 'DistError';
}

interface Variants {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

export interface BodyStore {
  manifest: Manifest;
  bytes(source: BodySource, encoding: Encoding): Uint8Array;
  /** A file of the build as text (what a lookup decision reads). */
  text(file: string): string;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** br and gzip at their best ratio, on zlib's thread pool: the event loop keeps serving. */
async function compress(identity: Buffer): Promise<Variants> {
  const [br, gz] = await Promise.all([
    brotli(identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
    gzipAsync(identity, { level: 9 }),
  ]);
  return { identity, br, gzip: gz };
}

export async function readManifest(distDir: string): Promise<Manifest> {
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
  const result = manifestSchema.safeParse(json);
  if (!result.success)
    throw new DistError(
      `${path} is not a build manifest (${result.error.issues[0]?.message}): rebuild with npm run build.`,
    );
  return result.data;
}

/** Reads every API file of the build in `distDir` and checks it against the manifest. */
export async function readVerifiedBuild(distDir: string): Promise<{ manifest: Manifest; files: Map<string, Buffer> }> {
  const manifest = await readManifest(distDir);
  const files = new Map<string, Buffer>();
  for (const [path, expected] of Object.entries(manifest.files)) {
    const fullPath = join(distDir, path);
    let identity: Buffer;
    try {
      identity = await readFile(fullPath);
    } catch {
      throw new DistError(`${fullPath} is missing; the build in ${distDir} is incomplete: rebuild with npm run build.`);
    }
    const digest = createHash('sha256').update(identity).digest('hex');
    if (identity.length !== expected.size || digest !== expected.sha256) {
      throw new DistError(
        `${fullPath} does not match the manifest (${identity.length} bytes, sha256 ${digest.slice(0, 12)}…; expected ${expected.size} bytes, ${expected.sha256.slice(0, 12)}…): it is corrupted or from another build.`,
      );
    }
    files.set(path, identity);
  }
  return { manifest, files };
}

/** Loads, verifies and compresses the build in `distDir`, without blocking the event loop. */
export async function loadBodyStore(distDir: string): Promise<BodyStore> {
  const { manifest, files } = await readVerifiedBuild(distDir);
  // Alias and name envelopes often hold the same bytes: compress each distinct body once.
  const byDigest = new Map<string, Promise<Variants>>();
  const variantsOf = (identity: Buffer) => {
    const digest = createHash('sha256').update(identity).digest('hex');
    const known = byDigest.get(digest);
    if (known) return known;
    const variants = compress(identity);
    byDigest.set(digest, variants);
    return variants;
  };
  const fileVariants = new Map<string, Variants>();
  for (const [path, identity] of files) fileVariants.set(path, await variantsOf(identity));
  const texts = new Map<string, Variants>();
  for (const text of FIXED_BODIES) texts.set(text, await compress(Buffer.from(text, 'utf8')));
  return {
    manifest,
    bytes(source, encoding) {
      // A merged body is made for one request: compressed on the spot, never kept.
      if ('merged' in source) return encodeBody(Buffer.from(source.merged, 'utf8'), encoding, 'quick');
      const variants = 'file' in source ? fileVariants.get(source.file) : texts.get(source.text);
      if (!variants) throw new DistError(`${'file' in source ? source.file : 'that text'} is not a body of this build`);
      return variants[encoding];
    },
    text(file) {
      const variants = fileVariants.get(file);
      if (!variants) throw new DistError(`${file} is not a file of this build`);
      return variants.identity.toString('utf8');
    },
  };
}
