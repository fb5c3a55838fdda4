// The access log of the local server: one JSON line per request on stdout (time, method,
// path with query, status, bytes, duration, the token's name or the start of its digest,
// client address), never a token. ACCESS_LOG=off turns it off.
//
// Off the request path: a request only writes its record into a ring of shared memory
// (access-log-ring.ts), which the log's own thread (access-log-thread.ts) reads in batches; there
// the lines are made and written (access-log-lines.ts). Made on the serving thread, the lines
// cost it about a quarter of what it spent serving (22,000 instructions a request on 91,000,
// `npm run bench:instructions`); a batch posted to the thread a few records at a time still cost
// it about 5,000 a request in timers, copies and messages; the ring costs a record's stores.
//
// When stdout takes lines more slowly than requests come (a pipe whose reader stalls), the ring
// fills (RING_BYTES, with records cut to size as they are written); later records are dropped and
// counted, and within DROPPED_NOTICE_MS of a loss one line on stderr says how many, whether or not
// a request follows (stderr.ts bounds that line too: stderr may be the same stalled pipe). Neither
// the server's memory nor its answers wait on the log's reader. At exit the server waits
// EXIT_WAIT_MS for the lines, and says on stderr how many it leaves unwritten or dropped.
import { performance } from 'node:perf_hooks';
import { Worker as Thread } from 'node:worker_threads';
import { type AccessRecord, RING_BYTES, type RingMemory, ringMemory, RingWriter, WRITTEN } from './access-log-ring.ts';
import type { LogThreadData } from './access-log-thread.ts';
import { stderrLines } from './stderr.ts';
import { performanceToHrtime } from './thread-clock.ts';

export interface AccessLog {
  /** Adds the record of a request answered at `answeredAt` (a performance.now()); its line is written later. */
  add(record: AccessRecord, answeredAt: number): void;
  /** Returns once the lines of every record added are written, or after EXIT_WAIT_MS (before the process exits). */
  flushSync(): void;
}

const STDOUT = 1;
/** How long an exiting process waits for the log's thread to write the last lines. */
const EXIT_WAIT_MS = 10_000;
/** How soon after a record is dropped its count is said on stderr (one line for all dropped by then). */
export const DROPPED_NOTICE_MS = 500;

/**
 * Records written and not yet written out, from the two running counts (`added` on this thread,
 * `written` in shared memory). Both are 32-bit and wrap after 2^31 (half a day at 50,000
 * requests a second): the difference taken in 32 bits stays right across the wrap, as it never
 * nears 2^31.
 */
export const stillWaiting = (added: number, written: number): number => (added - written) | 0;

export interface LogThreadOptions {
  /** How long flushSync waits for the lines at exit (tests shorten it). */
  exitWaitMs?: number;
  /** The ring (tests hand in a small one, or one they write into themselves). */
  ring?: RingMemory;
  /** Where its lines for stderr go (stderr.ts; tests catch them). */
  say?: (line: string) => unknown;
}

/**
 * The access log on stdout (or on `fd`). Whoever ends the process calls flushSync() just
 * before, as serve.ts does once the server has closed. Not from a process 'exit' listener: in
 * Node 24, a thread (node:worker_threads) and an 'exit' listener together made the serving thread about 20 %
 * slower under load (V8 slow paths; BENCHMARKS.md, "Findings the code relies on"), each alone nothing.
 */
export function accessLog(fd = STDOUT, options: LogThreadOptions = {}): LogThread {
  return new LogThread(fd, options);
}

/**
 * The log's thread, which makes and writes the lines of the records in the ring, and counts the
 * records it has written in the ring's shared memory. It never keeps the process alive; a thread
 * that fails ends the log with one line on stderr, never the server, and every record from then
 * on (with those it had not written) is dropped, counted and said as a full ring's are.
 */
export class LogThread implements AccessLog {
  private readonly thread: Thread;
  private readonly exitWaitMs: number;
  private readonly say: (line: string) => unknown;
  private readonly control: Int32Array<SharedArrayBuffer>;
  private readonly ring: RingWriter;
  private added = 0;
  /** Records dropped (while the ring was full) and not yet said on stderr. */
  private dropped = 0;
  /** Records dropped since the log started (the metrics'). */
  droppedTotal = 0;
  /** The timer that says the dropped count, while one is set. */
  private notice: NodeJS.Timeout | undefined;
  /** No record is written any more: the thread failed, or was terminated. */
  private stopped = false;
  /** The thread failed: every record from then on is dropped, counted and said. */
  private failed = false;
  /** terminate() was called: nothing more is counted or said. */
  private terminated = false;

  constructor(
    fd: number,
    { exitWaitMs = EXIT_WAIT_MS, ring = ringMemory(), say = (line) => stderrLines.say(line) }: LogThreadOptions = {},
  ) {
    this.exitWaitMs = exitWaitMs;
    this.say = say;
    this.control = ring.control;
    this.ring = new RingWriter(ring);
    const workerData: LogThreadData = { fd, ring, servingToHrtime: performanceToHrtime() };
    this.thread = new Thread(new URL('./access-log-thread.ts', import.meta.url), { workerData });
    this.thread.unref();
    // 'error' comes before 'exit': its message is the one said.
    this.thread.on('error', (error) => this.threadFailed(error.message));
    this.thread.on('exit', (code) => this.threadFailed(`it exited with code ${code}`));
  }

  add(record: AccessRecord, answeredAt: number): void {
    if (this.stopped || !this.ring.write(record, answeredAt)) {
      this.drop(1);
      return;
    }
    this.added = (this.added + 1) | 0;
    // A message, not Atomics.notify: the thread waits on its event loop, which a message keeps alive.
    if (this.ring.wakeNeeded()) this.thread.postMessage(null);
  }

  /**
   * Waits up to `exitWaitMs` for every line, then says on stderr what was dropped and not said
   * yet, and how many lines are left unwritten (this is the server's exit).
   */
  flushSync(): void {
    const waiting = this.waitForLines();
    if (this.terminated) return;
    clearTimeout(this.notice);
    this.notice = undefined;
    this.sayDropped();
    // A failed thread's records were counted as dropped when it failed.
    if (waiting > 0 && !this.failed)
      this.say(
        `Access log: up to ${waiting} lines not written: stdout did not take them ` +
          `in the ${this.exitWaitMs / 1000} s the server waited before exiting.\n`,
      );
  }

  /** Waits up to `exitWaitMs` for the lines of every record added; how many records still wait. */
  waitForLines(): number {
    const deadline = performance.now() + this.exitWaitMs;
    for (;;) {
      const written = Atomics.load(this.control, WRITTEN);
      const waiting = stillWaiting(this.added, written);
      const left = deadline - performance.now();
      if (this.stopped || waiting <= 0 || left <= 0) return Math.max(waiting, 0);
      // The thread notifies each count it adds; a count added since it was read returns at once.
      Atomics.wait(this.control, WRITTEN, written, left);
    }
  }

  /** The thread ended, not by terminate(): said once, and from now on every record is dropped, counted. */
  private threadFailed(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.failed = true;
    this.say(`Access log stopped: its thread failed (${reason}).\n`);
    // The records it had not written went with it.
    this.drop(Math.max(stillWaiting(this.added, Atomics.load(this.control, WRITTEN)), 0));
  }

  /** Counts `count` records dropped, and says so within DROPPED_NOTICE_MS. */
  private drop(count: number): void {
    if (this.terminated || count === 0) return;
    this.dropped += count;
    this.droppedTotal += count;
    // Said by a timer, not by the next request: none may come.
    this.notice ??= setTimeout(() => {
      this.notice = undefined;
      this.sayDropped();
    }, DROPPED_NOTICE_MS).unref();
  }

  /** One line on stderr for the records dropped since it was last said, if any. */
  private sayDropped(): void {
    if (this.dropped === 0) return;
    const why = this.failed
      ? 'the log stopped when its thread failed'
      : 'stdout took lines more slowly than requests came ' +
        `(at most ${RING_BYTES / 1024 / 1024} MiB of records wait to be written)`;
    this.say(`Access log: ${this.dropped} lines dropped: ${why}.\n`);
    this.dropped = 0;
  }

  /** Stops the thread (the log is not used again). */
  terminate(): Promise<number> {
    this.stopped = true;
    this.terminated = true;
    clearTimeout(this.notice);
    return this.thread.terminate();
  }
}

/** The milliseconds from `start` to `end` (two performance.now()), to the microsecond. */
export const durationMs = (start: number, end: number): number => Math.round((end - start) * 1000) / 1000;
