// The manifests: an offline bundle's (every file with its sha256 and size, checked by the
// client before it answers) and the build's summary (dist/manifest.json).
import { z } from 'zod';
import { kindIds, kinds } from './kinds.ts';

export const manifestFileSchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.int().nonnegative(),
});
export type ManifestFile = z.infer<typeof manifestFileSchema>;

const version = z
  .string()
  .regex(/^[0-9a-f]{16}$/)
  .describe('Hash of the content the build was made from.');
const counts = z.record(z.enum(kindIds), z.int().nonnegative());
const releases = z
  .array(z.strictObject({ id: z.string(), version: z.string().regex(/^[0-9a-f]{16}$/) }))
  .describe('The data releases, newest first: each id with its data version.');

/**
 * Every file, by its path, each path an own key of the result: zod's record leaves out a key
 * named __proto__ (assigned to the object it builds, it would set the prototype), so a manifest
 * listing a file of that name would lose it. Read as a list of entries, each key is kept.
 */
const files = z
  .preprocess(
    (value) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : value),
    z.array(z.tuple([z.string(), manifestFileSchema]), { error: 'Expected an object of files by path' }),
  )
  .transform((entries): Record<string, ManifestFile> => Object.fromEntries(entries))
  .describe('Every file, by its path.');

/** A manifest of plain files: an offline bundle's. */
export const manifestSchema = z.strictObject({ version, counts, files, releases });

/**
 * dist/manifest.json: the build's summary, for people and the Node server (its banner, its
 * pack). No runtime answers a request from it: requests go through the routing index.
 */
export const buildManifestSchema = z.strictObject({
  version,
  counts,
  releases,
  pack: manifestFileSchema
    .extend({ bodies: z.int().nonnegative().describe('How many stored bodies the pack holds.') })
    .describe('The pack: every stored body of the build once, one after another (src/contract/build-files.ts).'),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type BuildManifest = z.infer<typeof buildManifestSchema>;

/** "106 trees, 8 cutters, 3 gifts, ..." in the registry's order. */
export function describeCounts(counts: Manifest['counts']): string {
  return kinds.map((kind) => `${counts[kind.id] ?? 0} ${kind.id}`).join(', ');
}
