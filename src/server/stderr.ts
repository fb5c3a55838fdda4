// Every line the server's processes write to stderr goes through here, bounded as the access log
// is. A line is handed to fs.write, which runs on libuv's threads, so a stderr that blocks (a
// stopped terminal, a full pipe) never blocks serving; while a write is under way later lines
// wait, up to MAX_WAITING_BYTES in all. Past that, lines are dropped and counted (process.stderr
// would queue them in memory without bound: 95-170 MB for 100,000 failures, issue 55), and once
// stderr has taken what waited one line says how many were dropped.
import { write, writeSync } from 'node:fs';
import { format } from 'node:util';

/** The most bytes of lines that wait for stderr (the one being written included). */
export const MAX_WAITING_BYTES = 64 * 1024;
/** How long a write that stderr refused for now (EAGAIN: a full pipe it does not wait on) waits to try again. */
const RETRY_MS = 100;

type Write = typeof write;

/** Lines for one file descriptor, written one batch at a time, dropped and counted past the bound. */
export class StderrLines {
  /** Lines dropped since the process started (the metrics'). */
  droppedTotal = 0;
  /** Lines dropped and not yet said. */
  private dropped = 0;
  private waiting: string[] = [];
  private waitingBytes = 0;
  private writing = false;
  /** Set when writing failed for good (EPIPE: the reader is gone): every later line is dropped. */
  private broken = false;
  private settledWaiters: (() => void)[] = [];

  private readonly fd: number;
  private readonly maxWaitingBytes: number;
  private readonly writeFd: Write;

  /** `writeFd`: fs.write, or a stand-in in tests. */
  constructor(fd = 2, maxWaitingBytes = MAX_WAITING_BYTES, writeFd: Write = write) {
    this.fd = fd;
    this.maxWaitingBytes = maxWaitingBytes;
    this.writeFd = writeFd;
  }

  /** Writes `line` (a newline added) when stderr takes it; false when it was dropped. */
  say(line: string): boolean {
    const text = line.endsWith('\n') ? line : `${line}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.broken || this.waitingBytes + bytes > this.maxWaitingBytes) {
      this.dropped++;
      this.droppedTotal++;
      return false;
    }
    this.waiting.push(text);
    this.waitingBytes += bytes;
    this.writeNext();
    return true;
  }

  /** `message` and `error` as console.error would show them (a stack included), as one say(). */
  sayError(message: string, error: unknown): boolean {
    return this.say(format(message, error));
  }

  /** Resolves once every line taken is written (or dropped), or after `ms`: what an exiting process waits. */
  settled(ms: number): Promise<void> {
    if (!this.writing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.settledWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private writeNext(): void {
    if (this.writing) return;
    // Said once stderr took everything that waited, which is when the count is complete.
    if (this.waiting.length === 0 && this.dropped > 0) {
      const notice =
        `Server: ${this.dropped} lines for stderr dropped: stderr took lines more slowly than they came ` +
        `(at most ${this.maxWaitingBytes / 1024} KiB wait to be written).\n`;
      this.dropped = 0;
      this.waiting.push(notice);
      this.waitingBytes += Buffer.byteLength(notice);
    }
    if (this.waiting.length === 0) {
      for (const settle of this.settledWaiters.splice(0)) settle();
      return;
    }
    const batch = Buffer.from(this.waiting.join(''));
    this.waiting = [];
    this.writing = true;
    this.writeOut(batch, batch.length);
  }

  /** Writes `bytes`, the rest of a batch of `batchBytes`, then the next batch. */
  private writeOut(bytes: Buffer, batchBytes: number): void {
    this.writeFd(this.fd, bytes, 0, bytes.length, null, (error, written) => {
      if (error?.code === 'EAGAIN') {
        setTimeout(() => this.writeOut(bytes, batchBytes), RETRY_MS).unref();
        return;
      }
      if (!error && written < bytes.length) {
        this.writeOut(bytes.subarray(written), batchBytes);
        return;
      }
      this.writing = false;
      if (error) this.breakOff();
      else this.waitingBytes -= batchBytes;
      this.writeNext();
    });
  }

  /** Stderr is gone: what waits is dropped, and so is every later line. */
  private breakOff(): void {
    this.broken = true;
    this.droppedTotal += this.waiting.length;
    this.waiting = [];
    this.waitingBytes = 0;
    this.dropped = 0;
  }
}

/** This process's stderr: every line the server writes there. */
export const stderrLines = new StderrLines();

/**
 * One line written at once, by a thread whose event loop may not turn again (the access log's
 * thread while the serving thread exits): it blocks that thread alone, and each caller says it
 * once in its life, so nothing can pile up.
 */
export function sayOnceNow(line: string): void {
  try {
    writeSync(2, line.endsWith('\n') ? line : `${line}\n`);
  } catch {
    // Stderr is gone: nothing else could say so.
  }
}
