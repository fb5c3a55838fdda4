// The wiki's near-miss files: each named kind's near-miss shards, the API's own (the build's one
// index, src/build/suggest-index.ts), laid out by src/contract/near-files.ts for the search page's
// "Did you mean", which reads them without a token (src/wiki/search-suggest.ts). Written by the
// integration beside the API rather than rendered by Astro: the wiki would make the index again.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NEAR_MANIFEST_PATH, type NearManifest, nearFiles, nearRootPath } from '../contract/near-files.ts';
import { kinds } from '../schema/kinds.ts';
import type { Content } from './content.ts';
import type { NearShardsOf } from './suggest-index.ts';

/** Writes the manifest and each named kind's files below `outDir`. */
export function writeNearFiles(outDir: string, content: Content, nearShardsOf: NearShardsOf): void {
  const manifest: NearManifest = {};
  for (const kind of kinds.filter((kind) => kind.named)) {
    const files = nearFiles(nearShardsOf(kind, content.entries[kind.id]));
    manifest[kind.id] = [...files.keys()];
    for (const [root, text] of files) write(join(outDir, nearRootPath(kind.id, root)), text);
  }
  write(join(outDir, NEAR_MANIFEST_PATH), JSON.stringify(manifest));
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
