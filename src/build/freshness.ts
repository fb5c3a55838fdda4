// Whether dist/ needs a rebuild: missing, older than anything it is built from (the data folder's
// content/ and releases/ included), or made with other settings of those that change what a
// build writes (SITE_ORIGIN, TREEFARM_DATA_DIR: outputSettings, in BUILD_SETTINGS_FILE).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { BUILD_SETTINGS_FILE } from '../contract/build-files.ts';
import { MANIFEST_FILE } from '../contract/paths.ts';
import { buildSettings, dataFolder, type OutputSettings, outputSettings } from './settings.ts';

/** What a build reads from the data folder (the project, or TREEFARM_DATA_DIR). */
const DATA_SOURCES = ['content', 'releases'];

/** What a build reads from the project: a change to any of these (or the data's) makes dist/ stale. */
const SOURCES = [
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

/**
 * Why dist/ must be rebuilt (naming the file or setting that changed), or undefined when it is
 * up to date with the sources and with `settings` (the environment's by default).
 */
export function staleReason(
  projectDir: string,
  distDir = join(projectDir, 'dist'),
  settings: OutputSettings = buildSettings(),
): string | undefined {
  const manifest = join(distDir, MANIFEST_FILE);
  if (!existsSync(manifest)) return `${distDir} has no build yet`;
  const settingChanged = changedSetting(join(distDir, BUILD_SETTINGS_FILE), outputSettings(settings, projectDir));
  if (settingChanged) return settingChanged;
  const built = statSync(manifest).mtimeMs;
  const data = dataFolder(settings, projectDir);
  const sources = [
    ...DATA_SOURCES.map((source) => join(data, source)),
    ...SOURCES.map((source) => join(projectDir, source)),
  ];
  for (const source of sources) {
    const changed = newestChange(source);
    if (changed && changed.time > built) return `${shownPath(projectDir, changed.path)} changed since the last build`;
  }
  return undefined;
}

/** A path as a reason shows it: relative inside the project, absolute outside it (a data folder elsewhere). */
function shownPath(projectDir: string, path: string): string {
  const inside = relative(projectDir, path);
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** Which setting differs from the one the build recorded, said as a reason; undefined when none does. */
function changedSetting(recordedFile: string, now: Record<string, string | null>): string | undefined {
  let recorded: unknown;
  try {
    recorded = JSON.parse(readFileSync(recordedFile, 'utf8'));
  } catch {
    return 'the last build did not record the settings it was made with';
  }
  const unset = (value: unknown) => value === null || value === undefined;
  for (const [name, value] of Object.entries(now)) {
    const then =
      typeof recorded === 'object' && recorded !== null ? (recorded as Record<string, unknown>)[name] : undefined;
    if ((then ?? null) !== value)
      return (
        `${name} is now ${unset(value) ? 'unset' : JSON.stringify(value)}; ` +
        `the last build was made ${unset(then) ? 'without it' : `with ${JSON.stringify(then)}`}`
      );
  }
  return undefined;
}
