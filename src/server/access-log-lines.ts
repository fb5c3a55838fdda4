// The access log's lines: one JSON line a record, made by hand from a template (the fields are
// always the same seven, so nothing is built per line but the line itself), and reaching their
// file descriptor (stdout) through sonic-boom in writes of whole lines. pino made the same lines
// at about 33,000 instructions each on this thread (`npm run bench:instructions`), most of it
// its per-line object walk. This runs in the log's own thread (access-log-thread.ts), off the
// event loop that serves requests, and so does what a line changes of the target as sent: the
// values of credential-looking query parameters become ***, and a target cut to size ends in
// …, cut further if its escaped line would pass ATOMIC_WRITE_BYTES.
import SonicBoom from 'sonic-boom';
import { type AccessRecord, MAX_PATH_LENGTH, type TimedRecord } from './access-log-ring.ts';

/** Where the lines go: sonic-boom on a file descriptor or, in tests, a stand-in. */
export interface LineSink {
  /** Whole lines, UTF-8: at most ATOMIC_WRITE_BYTES. */
  write(lines: Uint8Array): void;
}

/**
 * Bytes a pipe takes in one write without mixing it with another process's (PIPE_BUF on
 * Linux): lines reach stdout in writes of whole lines of at most this many bytes, so with
 * WORKERS>1 the lines of the processes sharing stdout never interleave mid-line. A line is
 * never longer: its target is cut until the line fits.
 */
export const ATOMIC_WRITE_BYTES = 4096;
/** What ends a target that was cut (a target as node:http gives it has one byte a character, never this one). */
const CUT = '…';
/** Query parameters whose values the log never shows, in any letter case, percent-encoded or not. */
const CREDENTIAL_NAMES = new Set(['token', 'api_key', 'key', 'access_token', 'auth', 'password']);
/**
 * A parameter that may be one of them (or percent-encodes its name): only a target with one is
 * taken apart, which most lines need not pay for.
 */
const MAYBE_CREDENTIAL = new RegExp(`[?&](?:${[...CREDENTIAL_NAMES].join('|')}|[^&=]*%[^&=]*)=`, 'i');

/** Makes the lines of records and hands them to a sink. */
export class LineMaker {
  private readonly lines: LineBatches;
  /** Date.now() of the line being made: when its request was answered. */
  private lineTime = 0;
  private readonly timestamp = isoTimestamp(() => this.lineTime);

  constructor(sink: LineSink) {
    this.lines = new LineBatches(sink);
  }

  /** Makes the line of each record and writes them all before returning. */
  write(records: Iterable<TimedRecord>): void {
    for (const { time, record } of records) {
      const path = shownPath(record.path);
      this.lineTime = time;
      const opening = this.timestamp();
      const over = this.lines.write(line(opening, record, path));
      // Rare (a long target of characters JSON escapes): made again with the target cut to fit.
      if (over > 0) this.lines.write(line(opening, record, cutToFit(path, jsonBytes(path) - over)));
    }
    this.lines.end();
  }
}

/**
 * The JSON line of `record` showing `path`, `opening` its time field: the fields in the order and
 * form JSON.stringify (and pino before) gives them.
 */
const line = (opening: string, record: AccessRecord, path: string): string =>
  `{${opening},"method":${jsonString(record.method)},"path":${jsonString(path)},"status":${record.status},` +
  `"bytes":${record.bytes},"durationMs":${record.durationMs},"token":${jsonOrNull(record.token)},` +
  `"client":${jsonOrNull(record.client)}}\n`;

/** Characters a JSON string escapes (lone surrogates included, as JSON.stringify does). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `value` as a JSON string: quoted as it is, unless it has a character JSON escapes (rare). */
const jsonString = (value: string): string => (ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`);

const jsonOrNull = (value: string | null): string => (value === null ? 'null' : jsonString(value));

/**
 * The target as a line shows it: credential values as ***, and a target longer than
 * MAX_PATH_LENGTH (the serving thread keeps one character more, access-log-ring.ts) cut, marked.
 */
function shownPath(target: string): string {
  const cut = target.length > MAX_PATH_LENGTH;
  const shown = withoutCredentials(cut ? target.slice(0, pairBoundary(target, MAX_PATH_LENGTH)) : target);
  return cut ? `${shown}${CUT}` : shown;
}

/**
 * `target` with the value of each credential-looking query parameter (CREDENTIAL_NAMES) written
 * as ***: a token sent in the query by mistake never reaches the log.
 */
function withoutCredentials(target: string): string {
  if (!MAYBE_CREDENTIAL.test(target)) return target;
  const queryStart = target.indexOf('?');
  const parameters = target.slice(queryStart + 1).split('&');
  let redacted = false;
  for (const [index, parameter] of parameters.entries()) {
    const equals = parameter.indexOf('=');
    if (equals === -1 || !isCredentialName(parameter.slice(0, equals))) continue;
    parameters[index] = `${parameter.slice(0, equals)}=***`;
    redacted = true;
  }
  return redacted ? `${target.slice(0, queryStart + 1)}${parameters.join('&')}` : target;
}

/** Whether a parameter name as sent is one of CREDENTIAL_NAMES once decoded, in any letter case. */
function isCredentialName(name: string): boolean {
  // Decoded as URLSearchParams does (a malformed escape stays as it is), so "%74oken" is "token".
  const decoded = name.includes('%')
    ? name.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : name;
  return CREDENTIAL_NAMES.has(decoded.toLowerCase());
}

/** The UTF-8 bytes of `value` as JSON (quotes and escapes included). */
const jsonBytes = (value: string): number => Buffer.byteLength(JSON.stringify(value));

/** `at`, or one less where `at` would split a surrogate pair of `text`. */
const pairBoundary = (text: string, at: number): number => {
  const before = text.charCodeAt(at - 1);
  return before >= 0xd800 && before <= 0xdbff ? at - 1 : at;
};

/**
 * The longest start of `path` that, marked as cut, takes at most `budget` bytes as JSON: cut in
 * the raw text, so no escape sequence or UTF-8 sequence is broken. Found by halving, as
 * escaping makes a character take from one byte to six.
 */
function cutToFit(path: string, budget: number): string {
  let fits = 0;
  let over = path.length;
  while (over - fits > 1) {
    const middle = (fits + over) >>> 1;
    if (jsonBytes(`${path.slice(0, middle)}${CUT}`) <= budget) fits = middle;
    else over = middle;
  }
  return `${path.slice(0, pairBoundary(path, fits))}${CUT}`;
}

/**
 * Lines encoded straight into chunks of at most ATOMIC_WRITE_BYTES that hold whole lines, handed
 * to the sink as each fills and at end(). A longer line is refused, for LineMaker to make again
 * shorter.
 */
class LineBatches {
  private readonly sink: LineSink;
  private chunk = Buffer.allocUnsafe(ATOMIC_WRITE_BYTES);
  private used = 0;

  constructor(sink: LineSink) {
    this.sink = sink;
  }

  /** Adds `line`; 0, or the bytes it has past ATOMIC_WRITE_BYTES if it was refused. */
  write(line: string): number {
    if (this.fits(line)) return 0;
    // The line did not fit after what the chunk holds: that goes first, then the line.
    this.end();
    return this.fits(line) ? 0 : Buffer.byteLength(line) - ATOMIC_WRITE_BYTES;
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
