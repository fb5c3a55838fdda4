// The API bodies of one build, held in memory: read once from dist/, each checked against
// the manifest's sha256 and size, with br and gzip variants made once. A build that does not
// match its manifest is refused whole, naming the file, so a server never mixes versions.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { MANIFEST_FILE } from '../contract/paths.ts';
import type { BodySource } from '../edge/core.ts';
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
  bytes(source: BodySource, encoding: Encoding): Buffer;
}

function compress(identity: Buffer): Variants {
  return {
    identity,
    br: brotliCompressSync(identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
    gzip: gzipSync(identity, { level: 9 }),
  };
}

export function readManifest(distDir: string): Manifest {
  const path = join(distDir, MANIFEST_FILE);
  if (!existsSync(path)) throw new DistError(`${path} is missing: run npm run build first.`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DistError(`${path} is not valid JSON (${(error as Error).message}): rebuild with npm run build.`);
  }
  const result = manifestSchema.safeParse(json);
  if (!result.success) throw new DistError(`${path} is not a build manifest (${result.error.issues[0]?.message}): rebuild with npm run build.`);
  return result.data;
}

/** Loads and verifies every API file of the build in `distDir`. */
export function loadBodyStore(distDir: string): BodyStore {
  const manifest = readManifest(distDir);
  const files = new Map<string, Variants>();
  // Alias and name envelopes often hold the same bytes: compress each distinct body once.
  const byDigest = new Map<string, Variants>();
  for (const [path, expected] of Object.entries(manifest.files)) {
    const fullPath = join(distDir, path);
    let identity: Buffer;
    try {
      identity = readFileSync(fullPath);
    } catch {
      throw new DistError(`${fullPath} is missing; the build in ${distDir} is incomplete: rebuild with npm run build.`);
    }
    const digest = createHash('sha256').update(identity).digest('hex');
    if (identity.length !== expected.size || digest !== expected.sha256) {
      throw new DistError(
        `${fullPath} does not match the manifest (${identity.length} bytes, sha256 ${digest.slice(0, 12)}…; expected ${expected.size} bytes, ${expected.sha256.slice(0, 12)}…): it is corrupted or from another build.`,
      );
    }
    let variants = byDigest.get(digest);
    if (!variants) {
      variants = compress(identity);
      byDigest.set(digest, variants);
    }
    files.set(path, variants);
  }
  const texts = new Map<string, Variants>();
  return {
    manifest,
    bytes(source, encoding) {
      if ('file' in source) {
        const variants = files.get(source.file);
        if (!variants) throw new DistError(`${source.file} is not an API file of this build`);
        return variants[encoding];
      }
      let variants = texts.get(source.text);
      if (!variants) {
        variants = compress(Buffer.from(source.text, 'utf8'));
        texts.set(source.text, variants);
      }
      return variants[encoding];
    },
  };
}
