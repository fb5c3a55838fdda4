// What `--version` says for every command of the project: the service's version (package.json)
// and the version of the data it would serve (the build's manifest), so a report names both.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectDir } from './project-dir.ts';
import { buildManifestSchema, describeCounts } from '../schema/manifest.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';

/** `treefarm-data 1.0.0 (Node 24.21.0)` and the data's line, for the build in `distDir`. */
export function projectVersion(distDir = join(projectDir, 'dist')): string {
  const { name, version } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  const manifestPath = join(distDir, MANIFEST_FILE);
  const shown = relative(process.cwd(), manifestPath) || manifestPath;
  let data: string;
  try {
    const manifest = buildManifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    data = `data version ${manifest.version} (${describeCounts(manifest.counts)}; ${shown})`;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    data = missing ? `data: not built yet (no ${shown}; npm run build makes it)` : `data: ${shown} is unreadable`;
  }
  return `${name} ${version} (Node ${process.versions.node})\n${data}`;
}
