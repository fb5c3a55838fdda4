// Whether dist/ needs a rebuild: missing, or older than anything it is built from.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MANIFEST_FILE } from '../contract/paths.ts';

/** What a build reads: a change to any of these makes dist/ stale. */
const SOURCES = [
  'content',
  'releases',
  'src',
  'public',
  // The wiki's API page shows the contract as written there.
  'docs/api-contract.md',
  'astro.config.mjs',
  'package-lock.json',
];

/** The newest change at or below `path`: its time, and the file (or folder) changed then. */
function newestChange(path: string): { time: number; path: string } | undefined {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  let newest = { time: stat.mtimeMs, path };
  if (stat.isDirectory())
    for (const entry of readdirSync(path)) {
      const below = newestChange(join(path, entry));
      if (below && below.time > newest.time) newest = below;
    }
  return newest;
}

/** Why dist/ must be rebuilt (naming the file that changed), or undefined when it is up to date. */
export function staleReason(projectDir: string, distDir = join(projectDir, 'dist')): string | undefined {
  const manifest = join(distDir, MANIFEST_FILE);
  if (!existsSync(manifest)) return `${distDir} has no build yet`;
  const built = statSync(manifest).mtimeMs;
  for (const source of SOURCES) {
    const changed = newestChange(join(projectDir, source));
    if (changed && changed.time > built) return `${relative(projectDir, changed.path)} changed since the last build`;
  }
  return undefined;
}
