// The access log's records, and how a batch of them crosses from the serving thread to the
// log's thread: as columns, the numbers in one Float64Array (moved, not copied) and the strings
// run together in one string, each field's length among the numbers. The clone copies one
// string a batch where an array of strings a field cost it a walk and a copy of each (and
// objects a record cost about three times that).
//
// A record is cut to size here, as it is added, so what waits for the log's thread is bounded
// in bytes: a request target keeps MAX_PATH_LENGTH characters and one more (the sign, for the
// log's thread, that it was cut), the other strings MAX_FIELD_LENGTH.

/** Longer request targets are cut to this many characters (the line marks the cut). */
export const MAX_PATH_LENGTH = 2048;
/** Longer methods, token names and client addresses are cut to this many characters (none is, in practice). */
export const MAX_FIELD_LENGTH = 64;

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

/** A record and the time of its line (Date.now() when its request was answered), as the log's thread gets it. */
export interface TimedRecord {
  time: number;
  record: AccessRecord;
}

/**
 * Records as columns, the message posted to the log's thread. Each record's time comes from
 * the performance.now() its duration ended at, set against the one Date.now() of the batch:
 * no clock read a request beyond the two of its duration.
 */
export interface RecordBatch {
  /** Date.now() when the batch was handed over... */
  time: number;
  /** ...and performance.now() at the same moment. */
  now: number;
  /**
   * Of each record in turn: status, bytes, durationMs, answeredAt (a performance.now()), and the
   * lengths of its method, path, token and client in `text` (-1 for a null token or client).
   */
  numbers: Float64Array<ArrayBuffer>;
  /** The method, path, token and client of each record in turn, run together. */
  text: string;
  /**
   * The batch's size as it crosses to the log's thread: its numbers, and a byte a character of
   * its text (node:http gives a request target one byte a character, as the clone carries it).
   */
  bytes: number;
}

const NUMBERS_PER_RECORD = 8;
/** The bytes a record's numbers take in a batch. */
const NUMBER_BYTES = NUMBERS_PER_RECORD * Float64Array.BYTES_PER_ELEMENT;

/** How many records a batch holds (read from its numbers, which every record has eight of). */
export const recordsOf = (batch: RecordBatch): number => batch.numbers.length / NUMBERS_PER_RECORD;

/** Collects records as columns, for one batch at a time; room for `records` before it grows. */
export class BatchBuilder {
  private numbers: Float64Array<ArrayBuffer>;
  private text = '';
  private records = 0;
  private bytes = 0;

  constructor(records: number) {
    this.numbers = new Float64Array(NUMBERS_PER_RECORD * records);
  }

  get size(): number {
    return this.records;
  }

  /** Adds a record of a request answered at `answeredAt` (a performance.now()). */
  add(record: AccessRecord, answeredAt: number): void {
    const at = this.records * NUMBERS_PER_RECORD;
    if (at === this.numbers.length) {
      const grown = new Float64Array(Math.max(this.numbers.length * 2, NUMBERS_PER_RECORD));
      grown.set(this.numbers);
      this.numbers = grown;
    }
    // Cut here, on the serving thread, so a long target never waits whole.
    const path = record.path.length > MAX_PATH_LENGTH ? record.path.slice(0, MAX_PATH_LENGTH + 1) : record.path;
    const method = cutField(record.method);
    const token = record.token === null ? '' : cutField(record.token);
    const client = record.client === null ? '' : cutField(record.client);
    const numbers = this.numbers;
    numbers[at] = record.status;
    numbers[at + 1] = record.bytes;
    numbers[at + 2] = record.durationMs;
    numbers[at + 3] = answeredAt;
    numbers[at + 4] = method.length;
    numbers[at + 5] = path.length;
    numbers[at + 6] = record.token === null ? -1 : token.length;
    numbers[at + 7] = record.client === null ? -1 : client.length;
    this.text += method + path + token + client;
    this.records++;
    this.bytes += NUMBER_BYTES + method.length + path.length + token.length + client.length;
  }

  /**
   * The records added since the last take, as a batch handed over at `time` (a Date.now()) and
   * `now` (a performance.now()); the builder starts empty again.
   */
  take(time: number, now: number): RecordBatch {
    const batch: RecordBatch = {
      time,
      now,
      numbers: this.numbers.slice(0, this.records * NUMBERS_PER_RECORD),
      text: this.text,
      bytes: this.bytes,
    };
    this.text = '';
    this.records = 0;
    this.bytes = 0;
    return batch;
  }
}

const cutField = (value: string): string =>
  value.length > MAX_FIELD_LENGTH ? value.slice(0, MAX_FIELD_LENGTH) : value;

/** The records of a batch, in the order they were added, each with the time of its answer. */
export function* recordsIn(batch: RecordBatch): Generator<TimedRecord> {
  const { numbers, text } = batch;
  let from = 0;
  /** The next field of `text`, `length` characters long (-1: null). */
  const field = (length: number): string | null => {
    if (length < 0) return null;
    from += length;
    return text.slice(from - length, from);
  };
  for (let at = 0; at < numbers.length; at += NUMBERS_PER_RECORD) {
    const method = field(numbers[at + 4] ?? 0) ?? '';
    const path = field(numbers[at + 5] ?? 0) ?? '';
    const token = field(numbers[at + 6] ?? -1);
    const client = field(numbers[at + 7] ?? -1);
    yield {
      time: Math.round(batch.time - (batch.now - (numbers[at + 3] ?? batch.now))),
      record: {
        method,
        path,
        status: numbers[at] ?? 0,
        bytes: numbers[at + 1] ?? 0,
        durationMs: numbers[at + 2] ?? 0,
        token,
        client,
      },
    };
  }
}
