// The access log's lines: pino makes one JSON line a record, and the lines reach their file
// descriptor (stdout) through sonic-boom in writes of whole lines. This runs in the log's own
// thread (access-log-thread.ts), off the event loop that serves requests.
import pino, { type DestinationStream } from 'pino';
import SonicBoom from 'sonic-boom';
import { MAX_PATH_LENGTH, type TimedRecord } from './access-log-batch.ts';

/** Where the lines go: sonic-boom on a file descriptor or, in tests, a stand-in. */
export interface LineSink {
  /** Whole lines, UTF-8: at most ATOMIC_WRITE_BYTES unless one line is longer. */
  write(lines: Uint8Array): void;
}

/**
 * Bytes a pipe takes in one write without mixing it with another process's (PIPE_BUF on
 * Linux): lines reach stdout in writes of whole lines of at most this many bytes, so with
 * WORKERS>1 the lines of the processes sharing stdout never interleave mid-line.
 */
export const ATOMIC_WRITE_BYTES = 4096;

/** Makes the lines of records with pino and hands them to a sink. */
export class LineMaker {
  /** Date.now() of the line being made: when its request was answered. */
  private lineTime = 0;
  private readonly lines: LineBatches;
  private readonly logger: pino.Logger;

  constructor(sink: LineSink) {
    this.lines = new LineBatches(sink);
    this.logger = pino(
      {
        base: undefined,
        // One line a request: no level or message, the record's own fields. With no level,
        // time opens the object, so it has no leading comma (pino's own isoTime has one).
        timestamp: isoTimestamp(() => this.lineTime),
        formatters: { level: () => ({}) },
      },
      this.lines,
    );
  }

  /** Makes the line of each record and writes them all before returning. */
  write(records: Iterable<TimedRecord>): void {
    for (const { time, record } of records) {
      this.lineTime = time;
      this.logger.info(
        record.path.length > MAX_PATH_LENGTH
          ? { ...record, path: `${record.path.slice(0, MAX_PATH_LENGTH)}…` }
          : record,
      );
    }
    this.lines.end();
  }
}

/**
 * pino's destination: lines encoded straight into chunks of at most ATOMIC_WRITE_BYTES that
 * hold whole lines (a longer line goes alone), handed to the sink as each fills and at end().
 */
class LineBatches implements DestinationStream {
  private readonly sink: LineSink;
  private chunk = Buffer.allocUnsafe(ATOMIC_WRITE_BYTES);
  private used = 0;

  constructor(sink: LineSink) {
    this.sink = sink;
  }

  write(line: string): void {
    if (this.fits(line)) return;
    // The line did not fit after what the chunk holds: that goes first, then the line.
    this.end();
    if (!this.fits(line)) this.sink.write(Buffer.from(line));
  }

  /** Hands on what the chunk holds. */
  end(): void {
    if (this.used === 0) return;
    this.sink.write(this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafe(ATOMIC_WRITE_BYTES);
    this.used = 0;
  }

  /** Adds the whole line to the chunk if it fits; false (and the chunk unchanged) if not. */
  private fits(line: string): boolean {
    const written = this.chunk.write(line, this.used);
    // With room for the longest character (4 bytes) left, the write was not cut short.
    if (this.used + written > ATOMIC_WRITE_BYTES - 4 && written !== Buffer.byteLength(line)) return false;
    this.used += written;
    return true;
  }
}

/**
 * `"time":"<ISO 8601, to the millisecond>"` for a line written at `now()`: the date and time
 * are formatted once a second, and each line adds its milliseconds (a Date per line would
 * cost more than the rest of the time field).
 */
export function isoTimestamp(now: () => number): () => string {
  let second = Number.NaN;
  let opening = '';
  return () => {
    const time = now();
    const millisecond = time % 1000;
    if (time - millisecond !== second) {
      second = time - millisecond;
      // "2026-11-23T20:30:00." of "2026-11-23T20:30:00.000Z"
      opening = `"time":"${new Date(second).toISOString().slice(0, -4)}`;
    }
    return `${opening}${millisecond < 10 ? '00' : millisecond < 100 ? '0' : ''}${millisecond}Z"`;
  };
}

/**
 * A file descriptor (stdout) through sonic-boom (pino's destination), each chunk written as it
 * comes, at once, so every line handed over is written when write() returns; a full pipe makes
 * this thread wait (where Node's own stdout would queue the chunk in memory). The first failed
 * write (the reader went away: EPIPE) ends the log and calls `onFailure` with its error code;
 * the server goes on.
 */
export function fdSink(fd: number, onFailure: (reason: string) => void): LineSink {
  const out = new SonicBoom({ fd, sync: true, contentMode: 'buffer' });
  let failed = false;
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    onFailure(error.code ?? error.message);
  });
  return {
    // sonic-boom's types know only string chunks; in buffer mode it writes Buffers as they are.
    write: (chunk) => {
      if (!failed) out.write(chunk as unknown as string);
    },
  };
}
