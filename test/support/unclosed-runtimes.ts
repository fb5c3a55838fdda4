// The runtimes of this test file started, or still starting, and not closed (runtimes.ts adds
// them): test/setup/close-runtimes.ts closes them when the file ends. One left open would
// otherwise live until vitest stops the file's process, with SIGTERM and 500 ms later SIGKILL,
// which ends Node before the exit hooks that stop workerd (a start still going when its
// beforeAll timed out under load is one): its workerd processes then run on, their parent gone.
// A module of its own, importing nothing of the project: the setup file runs before each test
// file's own mocks (vi.mock) are in place, so it must not load the modules a test mocks.

/** A runtime as this registry knows it: something to close. */
interface Closable {
  close(): Promise<void>;
}

const unclosed = new Set<Promise<Closable>>();

/** Keeps `starting` until it is closed or fails to start. */
export function trackUnclosed(starting: Promise<Closable>): void {
  unclosed.add(starting);
  starting.catch(() => unclosed.delete(starting));
}

/** Lets go of `starting`, now closed. */
export function closedRuntime(starting: Promise<Closable>): void {
  unclosed.delete(starting);
}

/** Closes every runtime of this file not closed yet, waiting for those still starting. */
export async function closeStartedRuntimes(): Promise<void> {
  await Promise.allSettled([...unclosed].map(async (starting) => (await starting).close()));
}
