// The build manifest (dist/manifest.json): which data version the build holds and every
// API file with its digest, and the digests of its br and gzip variants, and the index files
// the edge reads (suggestions' near misses). Runtimes refuse
// to serve a dist/ that does not match it. Offline bundles carry a manifest of the same
// shape without variants (manifestSchema).
import { z } from 'zod';
import { kindIds, kinds } from './kinds.ts';

export const manifestFileSchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.int().nonnegative(),
});

const version = z
  .string()
  .regex(/^[0-9a-f]{16}$/)
  .describe('Hash of the content the build was made from.');
const counts = z.record(z.enum(kindIds), z.int().nonnegative());
const releases = z
  .array(z.strictObject({ id: z.string(), version: z.string().regex(/^[0-9a-f]{16}$/) }))
  .describe('The data releases, newest first: each id with its data version.');

/** A manifest of plain files: an offline bundle's. */
export const manifestSchema = z.strictObject({
  version,
  counts,
  files: z.record(z.string(), manifestFileSchema).describe('Every file, by its path.'),
  releases,
});

/** An API file of a build: its identity bytes and the variants the build compressed once. */
export const builtFileSchema = manifestFileSchema.extend({
  br: manifestFileSchema.describe('The file compressed with br at quality 11, beside it as <path>.br.'),
  gzip: manifestFileSchema.describe('The file compressed with gzip at level 9, beside it as <path>.gz.'),
});

/** dist/manifest.json. */
export const buildManifestSchema = z.strictObject({
  version,
  counts,
  files: z.record(z.string(), builtFileSchema).describe('Every API file, by its path below dist/.'),
  index: z
    .record(z.string(), manifestFileSchema)
    .describe('The files of the near-miss suggestion index: read by the edge to make answers, never sent as they are.'),
  releases,
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof manifestFileSchema>;
export type BuildManifest = z.infer<typeof buildManifestSchema>;
export type BuiltFile = z.infer<typeof builtFileSchema>;

/** "106 trees, 8 cutters, 3 gifts, ..." in the registry's order. */
export function describeCounts(counts: Manifest['counts']): string {
  return kinds.map((kind) => `${counts[kind.id] ?? 0} ${kind.id}`).join(', ');
}
