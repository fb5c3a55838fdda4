// The access log of the local server: one JSON line per request on stdout (time, method,
// path with query, status, bytes, duration, the token's name or the start of its digest,
// client address), never a token. Written by pino through an asynchronous destination, so a
// request only hands its line over and never waits for the write. ACCESS_LOG=off turns it off.
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
      timestamp: pino.stdTimeFunctions.isoTime,
      // One line a request: no level or message, the record's own fields.
      formatters: { level: () => ({}) },
    },
    destination,
  );
  return (record) => logger.info(record);
}

function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false });
  process.once('exit', () => destination.flushSync());
  return destination;
}

/** The milliseconds since `start` (a performance.now()), to the microsecond. */
export const elapsedMs = (start: number): number => Math.round((performance.now() - start) * 1000) / 1000;
