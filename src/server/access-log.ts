// The access log of the local server: one JSON line per request on stdout (time, method,
// path with query, status, bytes, duration, the token's name or the start of its digest,
// client address), never a token. ACCESS_LOG=off turns it off.
//
// Off the request path: a request only adds its record to a batch, which goes to the log's
// own thread (access-log-thread.ts) when it holds BATCH_RECORDS records or BATCH_DELAY_MS
// after its first; there the lines are made and written (access-log-lines.ts). Made on the serving
// thread, even in one go after each turn of the event loop, the lines cost it about a quarter
// of what it spent serving (22,000 instructions a request on 91,000, `npm run
// bench:instructions`); now the record and its hand-over cost it about 5,000. Batches of
// hundreds rather than one a turn: each message wakes the thread and costs the serving thread
// a few microseconds, whatever it holds.
//
// When stdout takes lines more slowly than requests come (a pipe whose reader stalls), at most
// MAX_WAITING_RECORDS records and MAX_WAITING_BYTES bytes of them (cut to size as they are made:
// access-log-batch.ts) wait for the thread; later records are dropped and counted, and once
// lines move again one line on stderr says how many. Neither the server's memory nor its
// answers wait on the log's reader. At exit the server waits EXIT_WAIT_MS for the lines, and
// says on stderr how many it leaves unwritten or dropped.
import { Worker as Thread } from 'node:worker_threads';
import { type AccessRecord, BatchBuilder, type RecordBatch, recordsOf } from './access-log-batch.ts';
import type { LogThreadData } from './access-log-thread.ts';

export interface AccessLog {
  /** Adds the record of a request answered at `answeredAt` (a performance.now()); its line is written later. */
  add(record: AccessRecord, answeredAt: number): void;
  /** Hands on every record added and returns once their lines are written (before the process exits). */
  flushSync(): void;
}

/** What takes each batch of records: the log's thread or, in tests, a stand-in. */
export interface BatchWriter {
  write(batch: RecordBatch): void;
  /** Returns once every batch written so far has its lines written. */
  flushSync(): void;
}

const STDOUT = 1;
/** A batch goes to the log's thread once it holds this many records... */
export const BATCH_RECORDS = 256;
/** ...or this long after its first record, so a line is never far behind its request. */
export const BATCH_DELAY_MS = 20;
/** How long an exiting process waits for the log's thread to write the last lines. */
const EXIT_WAIT_MS = 10_000;
/** Records handed to the log's thread and not yet written, at most; past it, records are dropped... */
export const MAX_WAITING_RECORDS = 65_536;
/**
 * ...and their bytes (RecordBatch.bytes), at most: about 4,000 records whose targets were cut,
 * or 65,536 short ones (about 15 MiB of the process's memory either way, measured).
 */
export const MAX_WAITING_BYTES = 8 * 1024 * 1024;

/**
 * Records (or their bytes) handed on and not yet written, from the two running counts
 * (`posted` on this thread, `written` in shared memory). Both are 32-bit and wrap after 2^31
 * (records: half a day at 50,000 requests a second; bytes: sooner): the difference taken in 32
 * bits stays right across the wrap, as it never nears 2^31.
 */
export const stillWaiting = (posted: number, written: number): number => (posted - written) | 0;

/**
 * The access log on stdout (or on `writer`). Whoever ends the process calls flushSync() just
 * before, as serve.ts does once the server has closed. Not from a process 'exit' listener: in
 * Node 24, a thread (node:worker_threads) and an 'exit' listener together made the serving thread about 20 %
 * slower under load (V8 slow paths; BENCHMARKS.md, "Findings the code relies on"), each alone nothing.
 */
export function accessLog(writer: BatchWriter = new LogThread(STDOUT)): AccessLog {
  return new BatchedLog(writer);
}

class BatchedLog implements AccessLog {
  private readonly batch = new BatchBuilder(BATCH_RECORDS);
  private timer: NodeJS.Timeout | undefined = undefined;
  private readonly writer: BatchWriter;

  constructor(writer: BatchWriter) {
    this.writer = writer;
  }

  add(record: AccessRecord, answeredAt: number): void {
    this.batch.add(record, answeredAt);
    if (this.batch.size >= BATCH_RECORDS) this.handOver();
    // Unref'd: a batch waiting never keeps a process alive (whoever ends it flushes).
    else this.timer ??= setTimeout(this.handOver, BATCH_DELAY_MS).unref();
  }

  flushSync(): void {
    this.handOver();
    this.writer.flushSync();
  }

  private readonly handOver = () => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.batch.size > 0) this.writer.write(this.batch.take(Date.now(), performance.now()));
  };
}

/**
 * The log's thread, which makes and writes the lines of the batches posted to it, and counts
 * the records it has written in memory shared with this thread. It never keeps the process
 * alive; a thread that fails ends the log with one line on stderr, never the server.
 */
export class LogThread implements BatchWriter {
  private readonly thread: Thread;
  private readonly exitWaitMs: number;
  /** [0]: records the thread has written, [1]: their bytes (each wrapping at 2^31, see stillWaiting). */
  private readonly written = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  private posted = 0;
  private postedBytes = 0;
  /** Records dropped (while MAX_WAITING_RECORDS or MAX_WAITING_BYTES were waiting) and not yet said on stderr. */
  private dropped = 0;
  private stopped = false;

  /** `exitWaitMs`: how long flushSync waits for the lines at exit (tests shorten it). */
  constructor(fd: number, exitWaitMs = EXIT_WAIT_MS) {
    this.exitWaitMs = exitWaitMs;
    const workerData: LogThreadData = { fd, written: this.written };
    this.thread = new Thread(new URL('./access-log-thread.ts', import.meta.url), { workerData });
    this.thread.unref();
    this.thread.on('error', (error) => {
      this.stopped = true;
      process.stderr.write(`Access log stopped: its thread failed (${error.message}).\n`);
    });
  }

  write(batch: RecordBatch): void {
    if (this.stopped) return;
    const records = recordsOf(batch);
    if (
      stillWaiting(this.posted, Atomics.load(this.written, 0)) + records > MAX_WAITING_RECORDS ||
      stillWaiting(this.postedBytes, Atomics.load(this.written, 1)) + batch.bytes > MAX_WAITING_BYTES
    ) {
      this.dropped += records;
      return;
    }
    // Not said while dropping: stderr may be the same stalled pipe (where Node would queue the line in
    // memory, without bound) or a stopped terminal (where the write would block serving).
    this.sayDropped();
    // The numbers' memory moves to the thread instead of being copied.
    this.thread.postMessage(batch, [batch.numbers.buffer]);
    this.posted = (this.posted + records) | 0;
    this.postedBytes = (this.postedBytes + batch.bytes) | 0;
  }

  /**
   * Waits up to `exitWaitMs` for every line handed on, then says on stderr what was dropped and
   * not said yet, and how many lines are left unwritten (this is the server's exit).
   */
  flushSync(): void {
    const waiting = this.waitForLines();
    if (this.stopped) return;
    this.sayDropped();
    if (waiting > 0)
      process.stderr.write(
        `Access log: up to ${waiting} lines not written: stdout did not take them ` +
          `in the ${this.exitWaitMs / 1000} s the server waited before exiting.\n`,
      );
  }

  /** Waits up to `exitWaitMs` for every line handed on to be written; how many records still wait. */
  waitForLines(): number {
    const deadline = performance.now() + this.exitWaitMs;
    for (;;) {
      const written = Atomics.load(this.written, 0);
      const waiting = stillWaiting(this.posted, written);
      const left = deadline - performance.now();
      if (this.stopped || waiting <= 0 || left <= 0) return Math.max(waiting, 0);
      Atomics.wait(this.written, 0, written, left);
    }
  }

  /** One line on stderr for the records dropped since it was last said, if any. */
  private sayDropped(): void {
    if (this.dropped === 0) return;
    process.stderr.write(
      `Access log: ${this.dropped} lines dropped: stdout took lines more slowly than requests came ` +
        `(at most ${MAX_WAITING_RECORDS} records or ${MAX_WAITING_BYTES / 1024 / 1024} MiB wait to be written).\n`,
    );
    this.dropped = 0;
  }

  /** Stops the thread (the log is not used again). */
  terminate(): Promise<number> {
    this.stopped = true;
    return this.thread.terminate();
  }
}

/** The milliseconds from `start` to `end` (two performance.now()), to the microsecond. */
export const durationMs = (start: number, end: number): number => Math.round((end - start) * 1000) / 1000;
