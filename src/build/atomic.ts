// Builds into a fresh staging folder beside the target and swaps it in only when complete,
// so a failed or killed build leaves the previous output exactly as it was.
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const STAGING_PREFIX = '.staging-';
const RETIRED_PREFIX = '.retired-';

export async function replaceAtomically(target: string, produce: (staging: string) => Promise<void> | void): Promise<void> {
  const parent = dirname(target);
  const name = basename(target);
  removeLeftovers(parent, name);
  const staging = mkdtempSync(join(parent, `${STAGING_PREFIX}${name}-`));
  try {
    await produce(staging);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  // Two renames: the old output is moved aside whole, then the new one takes its place.
  const retired = join(parent, `${RETIRED_PREFIX}${name}-${process.pid}`);
  const hadPrevious = existsSync(target);
  if (hadPrevious) renameSync(target, retired);
  try {
    renameSync(staging, target);
  } catch (error) {
    if (hadPrevious) renameSync(retired, target);
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  if (hadPrevious) rmSync(retired, { recursive: true, force: true });
}

/** Staging folders of builds that were killed midway, and outputs retired but not yet removed. */
function removeLeftovers(parent: string, name: string): void {
  if (!existsSync(parent)) return;
  for (const entry of readdirSync(parent)) {
    if (entry.startsWith(`${STAGING_PREFIX}${name}-`) || entry.startsWith(`${RETIRED_PREFIX}${name}-`)) {
      rmSync(join(parent, entry), { recursive: true, force: true });
    }
  }
}
