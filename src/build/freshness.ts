// Whether dist/ needs a rebuild: missing, or older than anything it is built from.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE } from '../contract/paths.ts';

/** What a build reads: a change to any of these makes dist/ stale. */
const SOURCES = ['content', 'releases', 'src', 'public', 'astro.config.mjs', 'package-lock.json'];

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

/** Why dist/ must be rebuilt, or undefined when it is up to date. */
export function staleReason(projectDir: string, distDir = join(projectDir, 'dist')): string | undefined {
  const manifest = join(distDir, MANIFEST_FILE);
  if (!existsSync(manifest)) return `${distDir} has no build yet`;
  const built = statSync(manifest).mtimeMs;
  const changed = SOURCES.find((source) => newestChange(join(projectDir, source)) > built);
  return changed ? `${changed} changed since the last build` : undefined;
}
