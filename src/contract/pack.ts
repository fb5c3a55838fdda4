// The pack: every API file of a build and its br and gzip variants in one file, for a server
// that holds the whole build in memory. At 100k records a build has 600k API files, and
// opening each costs more than reading its bytes; the pack is read with a few sequential
// reads instead. Its layout: the manifest's files in the manifest's order, each as its
// identity bytes, then br, then gzip, nothing between; so each part's place follows from the
// sizes in the manifest, and a reader checks every part against its sha256 as it would the
// file. The Worker fetches single files and never the pack, so the pack is not deployed.
import type { BuildManifest, BuiltFile, ManifestFile } from '../schema/manifest.ts';
import { API_DIR, type Compression } from './paths.ts';

export const PACK_FILE = `${API_DIR}/bodies.pack`;

/** The file of dist/ that lists what `wrangler deploy` leaves out of the Worker's static assets. */
export const ASSETS_IGNORE_FILE = '.assetsignore';
/** Files of dist/ that are not Workers static assets: written to ASSETS_IGNORE_FILE, one a line. */
export const NOT_DEPLOYED: readonly string[] = [PACK_FILE];

/** A part of an API file in the pack: its bytes as they are, or one of its variants. */
export type PackPart = 'identity' | Compression;
/** The parts of one API file in the pack, in their order. */
export const PACK_PARTS: readonly PackPart[] = ['identity', 'br', 'gzip'];

export interface PackedPart {
  /** The API file (its path below dist/, as the manifest names it). */
  file: string;
  part: PackPart;
  /** Where the part starts in the pack. */
  offset: number;
  /** What the part must be: its size and sha256, from the manifest. */
  expected: ManifestFile;
}

/** The manifest entry of one part of an API file: the file's own, or its variant's. */
export const partEntry = (entry: BuiltFile, part: PackPart): ManifestFile =>
  part === 'identity' ? entry : entry[part];

/** Where each part of each API file lies in the pack of a build with these files, in pack order. */
export function* packLayout(files: BuildManifest['files']): Generator<PackedPart> {
  let offset = 0;
  // for...in rather than Object.entries: no array per file, at 200k files.
  for (const file in files) {
    const entry = files[file];
    if (!entry) continue;
    for (const part of PACK_PARTS) {
      const expected = partEntry(entry, part);
      yield { file, part, offset, expected };
      offset += expected.size;
    }
  }
}
