// The access log of the local server: one JSON line per request on stdout (time, method,
// path with query, status, bytes, duration, the token's name or the start of its digest,
// client address), never a token. ACCESS_LOG=off turns it off.
//
// Off the request path: a request only queues its record. Once the answers of that turn of
// the event loop are written (setImmediate), pino makes the turn's lines in one go, and they
// reach stdout through sonic-boom in writes of whole lines. Measured under load, a line made
// while its request was answered cost the server about twice what it costs in a batch, and
// sonic-boom taking line after line measured its growing buffer on each (a copy of it).
import pino, { type DestinationStream } from 'pino';
import SonicBoom from 'sonic-boom';

export interface AccessRecord {
  method: string;
  /** The request target as sent: path and query. */
  path: string;
  status: number;
  /** Body bytes sent (0 for HEAD, 204 and 304). */
  bytes: number;
  durationMs: number;
  /** The name of the token that passed, or the first 8 hex characters of its digest; null without one. */
  token: string | null;
  /** The client's address, as the socket has it. */
  client: string | null;
}

export interface AccessLog {
  /** Queues a request's line; it is made and written after this turn of the event loop. */
  add(record: AccessRecord): void;
  /** Makes and writes every queued line now, synchronously (when the process exits). */
  flushSync(): void;
}

/** Where the lines go: sonic-boom on stdout or, in tests, a stand-in. */
export interface LineSink {
  /** Whole lines, UTF-8: at most ATOMIC_WRITE_BYTES unless one line is longer. */
  write(lines: Uint8Array): void;
  flushSync(): void;
}

/**
 * Bytes a pipe takes in one write without mixing it with another process's (PIPE_BUF on
 * Linux): lines reach stdout in writes of whole lines of at most this many bytes, so with
 * WORKERS>1 the lines of the processes sharing stdout never interleave mid-line.
 */
export const ATOMIC_WRITE_BYTES = 4096;
/** Longer request targets are cut, so a line stays well within one atomic write. */
export const MAX_PATH_LENGTH = 2048;

/** The access log on stdout (or on `sink`); what is queued at exit is written before it. */
export function accessLog(sink?: LineSink): AccessLog {
  const log = new QueuedLog(sink ?? stdoutSink());
  if (!sink) process.once('exit', () => log.flushSync());
  return log;
}

class QueuedLog implements AccessLog {
  private records: AccessRecord[] = [];
  private scheduled = false;
  /** Date.now() when the queued lines are made, at the end of the turn their requests were answered in. */
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

  add(record: AccessRecord): void {
    this.records.push(record);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.writeQueued);
  }

  flushSync(): void {
    this.writeQueued();
    this.lines.sink.flushSync();
  }

  private readonly writeQueued = () => {
    this.scheduled = false;
    const records = this.records;
    this.records = [];
    this.lineTime = Date.now();
    for (const record of records) {
      this.logger.info(
        record.path.length > MAX_PATH_LENGTH
          ? { ...record, path: `${record.path.slice(0, MAX_PATH_LENGTH)}…` }
          : record,
      );
    }
    this.lines.end();
  };
}

/**
 * pino's destination: the lines of a turn, encoded straight into chunks of at most
 * ATOMIC_WRITE_BYTES that hold whole lines (a longer line goes alone), handed to the sink as
 * each fills and when the turn's lines are made.
 */
class LineBatches implements DestinationStream {
  readonly sink: LineSink;
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
 * stdout through sonic-boom (pino's destination), each chunk written as it comes, at once:
 * the way Node writes its own stdout on Linux to files and pipes. A write on the libuv thread
 * pool instead cost the server more than the line itself when both cores were busy. A failed
 * write (the reader went away: EPIPE) ends the log with one line on stderr, never the server.
 */
function stdoutSink(): LineSink {
  const stdout = new SonicBoom({ fd: 1, sync: true, contentMode: 'buffer' });
  let failed = false;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    process.stderr.write(`Access log stopped: writing to stdout failed (${error.code ?? error.message}).\n`);
  });
  return {
    // sonic-boom's types know only string chunks; in buffer mode it writes Buffers as they are.
    write: (chunk) => {
      if (!failed) stdout.write(chunk as unknown as string);
    },
    // After a failed write sonic-boom would retry the chunk forever here.
    flushSync: () => {
      if (!failed) stdout.flushSync();
    },
  };
}

/** The milliseconds since `start` (a performance.now()), to the microsecond. */
export const elapsedMs = (start: number): number => Math.round((performance.now() - start) * 1000) / 1000;
