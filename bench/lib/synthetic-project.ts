// A copy of this project with synthetic content, in a folder of its own, so that the real
// `npm run build` can run over any number of records without touching the real content/.
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { projectDir } from '../../src/cli/project-dir.ts';
import { writeSyntheticContent } from './synthetic-content.ts';

/** What a build reads besides content/: the sources, the static files and the configuration. */
const PROJECT_FILES = ['src', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'];

/** Writes the project below `dir` with `treeCount` synthetic trees; returns the project's folder. */
export function writeSyntheticProject(dir: string, treeCount: number): string {
  for (const file of PROJECT_FILES) cpSync(join(projectDir, file), join(dir, file), { recursive: true });
  // The dependencies are shared, not copied: the build only reads them.
  symlinkSync(join(projectDir, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeSyntheticContent(dir, treeCount);
  return dir;
}
