// Each thread's performance.now() counts from its own start, and performance.timeOrigin is that
// start read on the wall clock, in a second read after the monotonic one: a thread descheduled
// between the two (a loaded machine, milliseconds) has a timeOrigin off by that much. process.hrtime
// is the one monotonic clock every thread of the process shares, so each thread measures its
// performance.now() against it instead, and keeps the closest of a few tries.
import { performance } from 'node:perf_hooks';

const TRIES = 5;

/** What this thread adds to a performance.now() to have the process's hrtime, in milliseconds. */
export function performanceToHrtime(): number {
  let closest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    // performance.now() first: the gap between the reads only ever makes the difference larger.
    const now = performance.now();
    const hrtime = Number(process.hrtime.bigint()) / 1e6;
    closest = Math.min(closest, hrtime - now);
  }
  return closest;
}
