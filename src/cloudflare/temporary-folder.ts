// The temporary folders of `npm run worker` and `npm run deploy` (the R2 mode's wrangler config
// and staged assets, a dry run's copy of the local bucket): each removed when its run is done
// with it, and any still there when the process exits, so a run stopped partway leaves none
// behind. A CLI calls exitOnSignals() so that Ctrl-C (SIGINT) and SIGTERM end it through that
// exit, not around it (wrangler's own exit hook stops the workerd it started the same way).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const present = new Set<string>();

function removeFolder(path: string): void {
  present.delete(path);
  // Retried: a process of wrangler's group may still be writing into it as it ends.
  rmSync(path, { recursive: true, force: true, maxRetries: 5 });
}

process.on('exit', () => {
  for (const path of present) {
    try {
      removeFolder(path);
    } catch (error) {
      console.error(`Could not remove the temporary folder ${path}: ${(error as Error).message}`);
    }
  }
});

/** A new folder in the system's temporary folder, its name starting with `prefix`, and its removal. */
export function temporaryFolder(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  present.add(path);
  return { path, remove: () => removeFolder(path) };
}

/** The exit status of a process ended by a signal's default action: 128 and the signal's number. */
export const signalExitStatus = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Ends the process on SIGINT or SIGTERM with the status their default action gives, but through
 * process.exit, so exit handlers (the removal of temporary folders) run. Listened to, not once:
 * Ctrl-C under npm can deliver SIGINT twice (the terminal's, and npm's forward).
 */
export function exitOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(signalExitStatus[signal]));
}
