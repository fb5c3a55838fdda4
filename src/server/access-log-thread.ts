// The access log's thread: reads the records the serving thread writes into the ring
// (access-log-ring.ts), makes their lines and writes them to the log's file descriptor, then
// counts them as written in shared memory (how many wait, and at exit, whether all are written).
//
// While records come it reads them every BATCH_DELAY_MS, so each read takes a batch and the
// serving thread never has to wake it. Once a read finds the ring empty it says it sleeps
// (control[SLEEPING]) and waits for a message, which the next record's writer sends.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { fdSink, LineMaker } from './access-log-lines.ts';
import { type AccessRecord, RingReader, type RingMemory, SLEEPING, WRITTEN } from './access-log-ring.ts';
import { sayOnceNow } from './stderr.ts';
import { performanceToHrtime } from './thread-clock.ts';

/** How long the thread lets records gather between reads while they come. */
export const BATCH_DELAY_MS = 20;

export interface LogThreadData {
  /** Where the lines go: 1 (stdout) when serving. */
  fd: number;
  ring: RingMemory;
  /** The serving thread's performanceToHrtime(), to turn its performance.now() into times of day. */
  servingToHrtime: number;
}

const { fd, ring, servingToHrtime } = workerData as LogThreadData;
// At once: a worker's process.stderr goes through the serving thread's event loop, which is not
// turning when this happens during its exit. Said once: the log stops with it.
const where = fd === 1 ? 'stdout' : `file descriptor ${fd}`;
const lines = new LineMaker(
  fdSink(fd, (reason) => sayOnceNow(`Access log stopped: writing to ${where} failed (${reason}).`)),
);
const reader = new RingReader(ring);
const { control } = ring;
/** The serving thread's clock against this thread's (both count from their own start). */
const servingClock = servingToHrtime - performanceToHrtime();

/** The time of day a record's line shows, from its answeredAt (set once a read: no clock read a record). */
let dayStart = 0;
const addLine = (record: AccessRecord, answeredAt: number) => lines.add(record, Math.round(dayStart + answeredAt));

/** Writes the lines of the records waiting; how many there were. */
function writeWaiting(): number {
  dayStart = Date.now() - performance.now() + servingClock;
  const records = reader.read(addLine);
  if (records === 0) return 0;
  lines.end();
  reader.release();
  Atomics.add(control, WRITTEN, records);
  // For an exiting server waiting on its last lines (LogThread.waitForLines).
  Atomics.notify(control, WRITTEN);
  return records;
}

/** Called by the serving thread's message: a record was written while this thread slept. */
let wake = () => {};
// Also what keeps this thread alive while it waits.
parentPort?.on('message', () => wake());

for (;;) {
  if (writeWaiting() > 0) {
    await sleep(BATCH_DELAY_MS);
    continue;
  }
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  Atomics.store(control, SLEEPING, 1);
  // A record written before SLEEPING was set: its writer saw no sleeper and sent nothing, so read it now.
  if (!reader.empty) {
    if (Atomics.exchange(control, SLEEPING, 0) === 0) await woken;
    continue;
  }
  await woken;
}
