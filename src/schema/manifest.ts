// The build manifest (dist/manifest.json): which data version the build holds and every
// API file with its digest. Runtimes refuse to serve a dist/ that does not match it.
import { z } from 'zod';
import { kindIds, kinds } from './kinds.ts';

export const manifestFileSchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.int().nonnegative(),
});

export const manifestSchema = z.strictObject({
  version: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .describe('Hash of the content the build was made from.'),
  counts: z.record(z.enum(kindIds), z.int().nonnegative()),
  files: z.record(z.string(), manifestFileSchema).describe('Every API file, by its path below dist/.'),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof manifestFileSchema>;

/** "106 trees, 8 cutters, 3 gifts, ..." in the registry's order. */
export function describeCounts(counts: Manifest['counts']): string {
  return kinds.map((kind) => `${counts[kind.id] ?? 0} ${kind.id}`).join(', ');
}
