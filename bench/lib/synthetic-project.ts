// A copy of this project with synthetic content, in a folder of its own, so that the real
// `npm run build` can run over any number of records without touching the real content/.
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { writeSyntheticContent } from './synthetic-content.ts';

/**
 * What a build reads besides content/: the sources, the static files, the configuration, and
 * docs/ (the wiki's API page shows docs/api-contract.md).
 */
const PROJECT_FILES = ['src', 'public', 'docs', 'astro.config.mjs', 'package.json', 'tsconfig.json'];

/**
 * Writes the project below `dir` with `treeCount` synthetic trees; returns the project's folder.
 * `sourceDir`: the checkout whose sources and dependencies it is made of (this one by default).
 */
export function writeSyntheticProject(dir: string, treeCount: number, sourceDir = projectDir): string {
  for (const file of PROJECT_FILES) cpSync(join(sourceDir, file), join(dir, file), { recursive: true });
  // The dependencies are shared, not copied: the build only reads them.
  symlinkSync(join(sourceDir, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeSyntheticContent(dir, treeCount);
  return dir;
}
