// The access log of the local server: one JSON line per request on stdout (time, method,
// path with query, status, bytes, duration, the token's name or the start of its digest,
// client address), never a token. Written by pino through an asynchronous destination, so a
// request only hands its line over and never waits for the write; lines are written in
// batches, so a busy server makes one write for many requests. ACCESS_LOG=off turns it off.
import pino, { type DestinationStream } from 'pino';

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

export type AccessLog = (record: AccessRecord) => void;

/**
 * A log writing to `destination` (by default stdout, asynchronously: lines are flushed when
 * the process exits).
 */
export function accessLog(destination: DestinationStream = stdoutDestination()): AccessLog {
  const logger = pino(
    {
      base: undefined,
      // One line a request: no level or message, the record's own fields. With no level, time
      // opens the object, so it has no leading comma (pino's own isoTime has one).
      timestamp: isoTimestamp(),
      formatters: { level: () => ({}) },
    },
    destination,
  );
  return (record) =>
    logger.info(
      record.path.length > MAX_PATH_LENGTH ? { ...record, path: `${record.path.slice(0, MAX_PATH_LENGTH)}…` } : record,
    );
}

/**
 * `"time":"<ISO 8601, to the millisecond>"` for a line written now: the date and time are
 * formatted once a second, and each line adds its milliseconds (a Date per line would cost
 * more than the rest of the time field).
 */
export function isoTimestamp(now: () => number = Date.now): () => string {
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
 * Bytes a pipe takes in one write without mixing it with another process's (PIPE_BUF on
 * Linux): sonic-boom writes whole lines in chunks of at most this many bytes, so with WORKERS>1
 * the lines of the processes sharing stdout never interleave mid-line.
 */
const ATOMIC_WRITE_BYTES = 4096;
/**
 * Lines are written once this many bytes wait (about 15 lines), so a busy server makes one
 * write (a turn of libuv's thread pool) per batch rather than per request...
 */
const BATCH_BYTES = 3072;
/** ...and at least this often, so a quiet server's lines reach a reader within a moment. */
const FLUSH_EVERY_MS = 250;
/** Longer request targets are cut, so a line stays well within one atomic write. */
const MAX_PATH_LENGTH = 2048;

function stdoutDestination(): DestinationStream {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    maxWrite: ATOMIC_WRITE_BYTES,
    minLength: BATCH_BYTES,
    periodicFlush: FLUSH_EVERY_MS,
  });
  process.once('exit', () => destination.flushSync());
  return destination;
}

/** The milliseconds since `start` (a performance.now()), to the microsecond. */
export const elapsedMs = (start: number): number => Math.round((performance.now() - start) * 1000) / 1000;
