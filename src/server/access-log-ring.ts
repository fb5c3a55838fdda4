// The access log's records, and how they cross from the serving thread to the log's thread: in a
// ring of shared memory, written by the serving thread and read by the log's thread, with no
// message, timer or allocation a record (a batch posted to the thread cost the serving thread a
// timer, a copy and a message each, which at a few records a batch was most of the log's cost).
//
// The ring is 8-byte units: a record is eight numbers (status, bytes, durationMs, answeredAt and
// the lengths of its method, path, token and client), then the characters of those strings, a
// byte each (Latin-1), to the next whole unit. A length of NONE is a null token or client; of
// SAME, the string of the record before (its characters not written again): a connection's
// requests mostly share their method, token and client address, so a record mostly carries its
// target alone, which is copied in one native call. One byte a character is all they need:
// node:http gives a request target one byte a character, methods and addresses are ASCII, and
// so are token names (TOKEN_NAME). A record that does not fit before the ring's end leaves a WRAP
// mark and starts again at 0. The serving thread alone moves HEAD (what is written), the log's
// thread alone TAIL (what is read and written out); each publishes its index with an atomic store
// after the memory it covers, so neither reads a half-written record. HEAD never catches up with
// TAIL (one unit stays free), so HEAD = TAIL means empty.
//
// A record is cut to size as it is written, so what waits is bounded in bytes by the ring: a
// request target keeps MAX_PATH_LENGTH characters and one more (the sign, for the log's thread,
// that it was cut), the other strings MAX_FIELD_LENGTH.

/** Longer request targets are cut to this many characters (the line marks the cut). */
export const MAX_PATH_LENGTH = 2048;
/** Longer methods, token names and client addresses are cut to this many characters (none is, in practice). */
export const MAX_FIELD_LENGTH = 64;
/**
 * The ring's size: the most that waits for the log's thread (about 40,000 records of short
 * targets, about 1,900 of cut ones; a few seconds of heavy traffic while stdout stalls).
 */
export const RING_BYTES = 4 * 1024 * 1024;

export interface AccessRecord {
  method: string;
  /** The request target as the client sent it (before any rewrite): path and query. */
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

/** The shared memory of a ring: what the serving thread hands the log's thread as it starts it. */
export interface RingMemory {
  /** [HEAD, TAIL, SLEEPING, WRITTEN]: see the constants. */
  control: Int32Array<SharedArrayBuffer>;
  records: SharedArrayBuffer;
}

/** control[HEAD]: the unit the next record is written at (moved by the serving thread alone). */
export const HEAD = 0;
/** control[TAIL]: the unit the next record is read from (moved by the log's thread alone). */
export const TAIL = 1;
/** control[SLEEPING]: 1 while the log's thread waits for a record with the ring empty; the writer wakes it. */
export const SLEEPING = 2;
/** control[WRITTEN]: the records the log's thread has written, a running count wrapping at 2^31. */
export const WRITTEN = 3;

const NUMBERS = 8;
/** In a record's first number (its status): the rest of the ring up to its end is unused, go on at 0. */
const WRAP = -1;
const UNIT_BYTES = Float64Array.BYTES_PER_ELEMENT;
/** A string's length in a record: a null token or client. */
const NONE = -1;
/** A string's length in a record: the same string as the record before's, not written again. */
const SAME = -2;

/** A new ring of `bytes` (a multiple of 8). */
export function ringMemory(bytes = RING_BYTES): RingMemory {
  return {
    control: new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT)),
    records: new SharedArrayBuffer(bytes),
  };
}

/** The units a record of `chars` characters takes. */
const unitsOf = (chars: number): number => NUMBERS + Math.ceil(chars / UNIT_BYTES);

const cutField = (value: string): string =>
  value.length > MAX_FIELD_LENGTH ? value.slice(0, MAX_FIELD_LENGTH) : value;

/** The length a token or client is written with: SAME as the record before's, NONE for null, else its own. */
const lengthOf = (value: string | null, same: boolean): number =>
  same ? SAME : value === null ? NONE : Math.min(value.length, MAX_FIELD_LENGTH);

/** One end of a ring: its shared memory seen as numbers (the units) and as bytes (the characters). */
class RingEnd {
  protected readonly control: Int32Array<SharedArrayBuffer>;
  protected readonly numbers: Float64Array<SharedArrayBuffer>;
  protected readonly bytes: Buffer;
  /** The ring's length in units. */
  protected readonly units: number;

  constructor({ control, records }: RingMemory) {
    this.control = control;
    this.numbers = new Float64Array(records);
    this.bytes = Buffer.from(records);
    this.units = this.numbers.length;
  }
}

/** The serving thread's end: writes records while there is room. */
export class RingWriter extends RingEnd {
  /** Written on from where the ring's HEAD is. */
  private head = Atomics.load(this.control, HEAD);
  /** TAIL as last read: read again only when the ring looks too full for a record. */
  private tail = Atomics.load(this.control, TAIL);
  /** The strings of the record written last (undefined before the first). */
  private method: string | undefined = undefined;
  private token: string | null | undefined = undefined;
  private client: string | null | undefined = undefined;

  /**
   * Writes a record of a request answered at `answeredAt` (a performance.now() of this thread);
   * false, writing nothing, when the ring has no room for it.
   */
  write(record: AccessRecord, answeredAt: number): boolean {
    const { method, token, client } = record;
    // Cut here, on the serving thread, so a long target never waits whole.
    const path = record.path.length > MAX_PATH_LENGTH ? record.path.slice(0, MAX_PATH_LENGTH + 1) : record.path;
    const sameMethod = method === this.method;
    const sameToken = token === this.token;
    const sameClient = client === this.client;
    // Mostly the target alone: no string is joined.
    let text = sameMethod ? path : `${cutField(method)}${path}`;
    if (!sameToken && token !== null) text += cutField(token);
    if (!sameClient && client !== null) text += cutField(client);
    const units = unitsOf(text.length);
    const at = this.place(units);
    if (at < 0) return false;
    const numbers = this.numbers;
    numbers[at] = record.status;
    numbers[at + 1] = record.bytes;
    numbers[at + 2] = record.durationMs;
    numbers[at + 3] = answeredAt;
    numbers[at + 4] = sameMethod ? SAME : Math.min(method.length, MAX_FIELD_LENGTH);
    numbers[at + 5] = path.length;
    numbers[at + 6] = lengthOf(token, sameToken);
    numbers[at + 7] = lengthOf(client, sameClient);
    this.bytes.write(text, (at + NUMBERS) * UNIT_BYTES, 'latin1');
    this.method = method;
    this.token = token;
    this.client = client;
    this.head = at + units === this.units ? 0 : at + units;
    // After the record's memory: the reader that sees the new HEAD sees the whole record.
    Atomics.store(this.control, HEAD, this.head);
    return true;
  }

  /** Whether the log's thread waits for a record (and must be woken): then marks it awake. */
  wakeNeeded(): boolean {
    return Atomics.load(this.control, SLEEPING) === 1 && Atomics.exchange(this.control, SLEEPING, 0) === 1;
  }

  /** Where a record of `units` goes (a WRAP mark left before it if it starts again at 0); -1 without room. */
  private place(units: number): number {
    const at = this.fit(units);
    if (at >= 0) return at;
    this.tail = Atomics.load(this.control, TAIL);
    return this.fit(units);
  }

  private fit(units: number): number {
    const { head, tail } = this;
    if (head < tail) return head + units < tail ? head : -1;
    // Up to the end, keeping HEAD off TAIL when TAIL is 0...
    if (head + units <= this.units - (tail === 0 ? 1 : 0)) return head;
    // ...or from 0, the rest marked unused, keeping HEAD off TAIL.
    if (units >= tail) return -1;
    this.numbers[head] = WRAP;
    return 0;
  }
}

/** The log's thread's end: reads the records written so far, then frees their room. */
export class RingReader extends RingEnd {
  /** Where the records read last end: TAIL once they are released. */
  private readTo = Atomics.load(this.control, TAIL);
  /** The record read last, handed to each visit in turn: its strings kept for records that say SAME. */
  private readonly record: AccessRecord = {
    method: '',
    path: '',
    status: 0,
    bytes: 0,
    durationMs: 0,
    token: null,
    client: null,
  };

  /** Whether a record waits. */
  get empty(): boolean {
    return Atomics.load(this.control, HEAD) === Atomics.load(this.control, TAIL);
  }

  /**
   * Hands `visit` each record written since the last read, oldest first, with the performance.now()
   * of the serving thread when it was answered; how many there were. The record is one object,
   * changed from record to record: what `visit` needs of it, it takes before returning. Their room
   * stays taken until release(): what waits for a stalled stdout is bounded by the ring alone.
   */
  read(visit: (record: AccessRecord, answeredAt: number) => void): number {
    const head = Atomics.load(this.control, HEAD);
    const { numbers, record } = this;
    let tail = this.readTo;
    let count = 0;
    while (tail !== head) {
      if (numbers[tail] === WRAP) {
        tail = 0;
        continue;
      }
      const methodLength = numbers[tail + 4] ?? Number.NaN;
      const pathLength = numbers[tail + 5] ?? Number.NaN;
      const tokenLength = numbers[tail + 6] ?? Number.NaN;
      const clientLength = numbers[tail + 7] ?? Number.NaN;
      const chars = written(methodLength) + pathLength + written(tokenLength) + written(clientLength);
      const units = unitsOf(chars);
      if (!Number.isInteger(chars) || methodLength < SAME || pathLength < 0 || tail + units > this.units)
        throw new Error(`access log ring: no record at unit ${tail}`);
      const from = (tail + NUMBERS) * UNIT_BYTES;
      const text = this.bytes.toString('latin1', from, from + chars);
      // The strings in their order, each from where the one before ends.
      const pathAt = written(methodLength);
      const tokenAt = pathAt + pathLength;
      const clientAt = tokenAt + written(tokenLength);
      if (methodLength !== SAME) record.method = text.slice(0, pathAt);
      record.path = text.slice(pathAt, tokenAt);
      if (tokenLength !== SAME) record.token = tokenLength === NONE ? null : text.slice(tokenAt, clientAt);
      if (clientLength !== SAME) record.client = clientLength === NONE ? null : text.slice(clientAt);
      record.status = numbers[tail] ?? 0;
      record.bytes = numbers[tail + 1] ?? 0;
      record.durationMs = numbers[tail + 2] ?? 0;
      visit(record, numbers[tail + 3] ?? 0);
      count++;
      tail = tail + units === this.units ? 0 : tail + units;
    }
    this.readTo = tail;
    return count;
  }

  /** Frees the room of the records read so far (their lines are written). */
  release(): void {
    Atomics.store(this.control, TAIL, this.readTo);
  }
}

/** The characters a string of a record takes in the ring: none if SAME or NONE. */
const written = (length: number): number => Math.max(length, 0);
