// The access log's lines: one JSON line a record, made by hand from a template (the fields are
// always the same eight, in the order and form JSON.stringify gives them), and reaching their
// file descriptor (stdout) through sonic-boom in writes of whole lines. The text of the fields a
// connection's requests share (method, token, client) is kept from one line to the next, so a
// line mostly joins its time, target and numbers to it. pino made the same lines at about 33,000
// instructions each on this thread, JSON.stringify of the fields at about 11,000 (`npm run
// bench:instructions`). This runs in the log's own thread (access-log-thread.ts), off the event
// loop that serves requests, and so does what a line changes of the target as sent: the values of
// credential-looking query parameters become ***, and a target cut to size ends in …, cut
// further if its line would pass ATOMIC_WRITE_BYTES.
import SonicBoom from 'sonic-boom';
import { type AccessRecord, MAX_PATH_LENGTH } from './access-log-ring.ts';

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
const NEWLINE = 0x0a;
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
  private readonly timeField = timeField();
  /**
   * The text of the fields a connection's requests mostly share, kept from the line before:
   * `,"method":"GET","path":` and `,"token":…,"client":…}` (each made again when its values change).
   */
  private method: string | undefined = undefined;
  private methodText = '';
  private token: string | null | undefined = undefined;
  private client: string | null | undefined = undefined;
  private tailText = '';

  constructor(sink: LineSink) {
    this.lines = new LineBatches(sink);
  }

  /** Makes the line of `record`, answered at `time` (a Date.now()); handed on at the latest by end(). */
  add(record: AccessRecord, time: number): void {
    const { method, token, client } = record;
    if (method !== this.method) {
      this.method = method;
      this.methodText = `,"method":${jsonString(method)},"path":`;
    }
    if (token !== this.token || client !== this.client) {
      this.token = token;
      this.client = client;
      this.tailText = `,"token":${jsonOrNull(token)},"client":${jsonOrNull(client)}}`;
    }
    const { path } = record;
    // Most targets are shown as sent: not cut, nothing JSON escapes, no credential-looking parameter.
    const plain = path.length <= MAX_PATH_LENGTH && !NEEDS_CARE.test(path);
    const shown = plain ? path : shownPath(path);
    const opening = `${this.timeField(time)}${this.methodText}`;
    const numbers =
      `,"status":${jsonNumber(record.status)},"bytes":${jsonNumber(record.bytes)},` +
      `"durationMs":${jsonDuration(record.durationMs)}${this.tailText}`;
    const over = this.lines.write(`${opening}${plain ? `"${shown}"` : jsonString(shown)}${numbers}`);
    // Rare (a long target of characters JSON escapes): made again with the target cut to fit.
    if (over > 0) this.lines.write(`${opening}${jsonString(cutToFit(shown, jsonBytes(shown) - over))}${numbers}`);
  }

  /** Hands on the lines made so far. */
  end(): void {
    this.lines.end();
  }
}

/** Characters a JSON string escapes (lone surrogates included, as JSON.stringify does). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
/** A character JSON escapes or a credential-looking parameter: one scan of a target for both. */
const NEEDS_CARE = new RegExp(`${ESCAPED.source}|${MAYBE_CREDENTIAL.source}`, 'i');

/** `value` as a JSON string: quoted as it is, unless it has a character JSON escapes (rare). */
const jsonString = (value: string): string => (ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`);

const jsonOrNull = (value: string | null): string => (value === null ? 'null' : jsonString(value));

/** A number as JSON.stringify writes it (null for NaN and the infinities, which JSON has not). */
const jsonNumber = (value: number): string => (Number.isFinite(value) ? `${value}` : 'null');

/** ".001" to ".999" without their trailing zeros, and "" for 0: a duration's decimals, by its microseconds. */
const DECIMALS = Array.from({ length: 1000 }, (_, micros) =>
  micros === 0 ? '' : `.${String(micros).padStart(3, '0').replace(/0+$/, '')}`,
);

/**
 * A duration as JSON.stringify writes it. One to the microsecond (as durationMs rounds it) is
 * its whole milliseconds and its decimals from DECIMALS, which costs less than formatting the
 * double: below 10^15 microseconds such a decimal is the double's shortest text.
 */
function jsonDuration(milliseconds: number): string {
  const micros = Math.round(milliseconds * 1000);
  if (!(milliseconds >= 0 && micros < 1e15 && micros / 1000 === milliseconds)) return jsonNumber(milliseconds);
  const decimals = micros % 1000;
  return `${(micros - decimals) / 1000}${DECIMALS[decimals] ?? ''}`;
}

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
export class LineBatches {
  private readonly sink: LineSink;
  private chunk = Buffer.allocUnsafe(ATOMIC_WRITE_BYTES);
  private used = 0;

  constructor(sink: LineSink) {
    this.sink = sink;
  }

  /** Adds `line` and its newline; 0, or the bytes they have past ATOMIC_WRITE_BYTES if they were refused. */
  write(line: string): number {
    if (this.fits(line)) return 0;
    // The line did not fit after what the chunk holds: that goes first, then the line.
    this.end();
    return this.fits(line) ? 0 : Buffer.byteLength(line) + 1 - ATOMIC_WRITE_BYTES;
  }

  /** Hands on what the chunk holds. */
  end(): void {
    if (this.used === 0) return;
    this.sink.write(this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafe(ATOMIC_WRITE_BYTES);
    this.used = 0;
  }

  /** Adds the whole line and its newline to the chunk if they fit; false (and the chunk unchanged) if not. */
  private fits(line: string): boolean {
    const room = ATOMIC_WRITE_BYTES - 1 - this.used;
    // A chunk filled to its last byte by the line before has no room, not a negative one (a length
    // of -1 made Buffer.write throw, which ended the log's thread).
    if (room < 0) return false;
    const written = this.chunk.write(line, this.used, room);
    // With room for the longest character (4 bytes) left, the write was not cut short.
    if (written > room - 4 && written !== Buffer.byteLength(line)) return false;
    this.chunk[this.used + written] = NEWLINE;
    this.used += written + 1;
    return true;
  }
}

/** `000Z"` to `999Z"`: how a time field ends, by its milliseconds. */
const MILLISECONDS = Array.from({ length: 1000 }, (_, millisecond) => `${String(millisecond).padStart(3, '0')}Z"`);

/**
 * `{"time":"<ISO 8601 to the millisecond>"` of a Date.now(): how a line opens. The date and time
 * are formatted once a second, and each line adds its milliseconds (a Date per line would cost
 * more than the rest of the line).
 */
function timeField(): (time: number) => string {
  let second = Number.NaN;
  let opening = '';
  return (time) => {
    const millisecond = time % 1000;
    if (time - millisecond !== second) {
      second = time - millisecond;
      // "2026-11-23T20:30:00." of "2026-11-23T20:30:00.000Z"
      opening = `{"time":"${new Date(second).toISOString().slice(0, -4)}`;
    }
    return `${opening}${MILLISECONDS[millisecond] ?? ''}`;
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
