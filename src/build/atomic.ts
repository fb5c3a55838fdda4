// Builds into a fresh staging folder beside the target and swaps it in only when complete,
// so a failed or killed build leaves the previous output exactly as it was. One build at a
// time per target: a second waits for the first, so neither sweeps up the other's staging.
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const STAGING_PREFIX = '.staging-';
const RETIRED_PREFIX = '.retired-';
const LOCK_WAIT_MS = 10 * 60_000;

export interface AtomicOptions {
  /** Told each time this build finds another holding the lock (its pid), so a test can wait for that. */
  onLockHeld?: (holder: number) => void;
}

export async function replaceAtomically(
  target: string,
  produce: (staging: string) => Promise<void> | void,
  { onLockHeld }: AtomicOptions = {},
): Promise<void> {
  const parent = dirname(target);
  const name = basename(target);
  const release = await lock(join(parent, `.${name}.lock`), onLockHeld);
  try {
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
  } finally {
    release();
  }
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file holding the builder's pid; one left by a process that died is taken over. */
async function lock(path: string, onLockHeld?: (holder: number) => void): Promise<() => void> {
  const started = Date.now();
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(path, 'utf8').trim() || 0);
    if (!holder || !isAlive(holder)) {
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() - started > LOCK_WAIT_MS)
      throw new Error(`Another build (pid ${holder}) has held ${path} for 10 minutes.`);
    onLockHeld?.(holder);
    await sleep(200);
  }
}
