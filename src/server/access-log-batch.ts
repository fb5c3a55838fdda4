// The access log's records, and how a batch of them crosses from the serving thread to the
// log's thread: as columns (the numbers in one Float64Array, each string field in an array of
// its own). A message of columns costs the serving thread about a third of one that carries
// the same records as objects, which the structured clone walks field by field.
//
// A record is cut to size here, as it is added, so what waits for the log's thread is bounded
// in bytes: a request target keeps MAX_PATH_LENGTH characters and one more (the sign, for the
// log's thread, that it was cut), the other strings MAX_FIELD_LENGTH.

/** Longer request targets are cut to this many characters (the line marks the cut). */
export const MAX_PATH_LENGTH = 2048;
/** Longer methods, token names and client addresses are cut to this many characters (none is, in practice). */
export const MAX_FIELD_LENGTH = 64;
/** The bytes a record's four numbers take in a batch. */
const NUMBER_BYTES = 4 * Float64Array.BYTES_PER_ELEMENT;

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
  /** status, bytes, durationMs and answeredAt (a performance.now()) of each record in turn. */
  numbers: Float64Array<ArrayBuffer>;
  /**
   * The batch's size as it crosses to the log's thread: its numbers, and a byte a character of
   * its strings (node:http gives a request target one byte a character, as the clone carries it).
   */
  bytes: number;
  methods: string[];
  paths: string[];
  tokens: (string | null)[];
  clients: (string | null)[];
}

const NUMBERS_PER_RECORD = 4;

/** How many records a batch holds (read from its numbers, which every record has four of). */
export const recordsOf = (batch: RecordBatch): number => batch.numbers.length / NUMBERS_PER_RECORD;

/** Collects records as columns, for one batch at a time; room for `records` before it grows. */
export class BatchBuilder {
  private numbers: Float64Array<ArrayBuffer>;
  private methods: string[] = [];
  private paths: string[] = [];
  private tokens: (string | null)[] = [];
  private clients: (string | null)[] = [];
  private bytes = 0;

  constructor(records: number) {
    this.numbers = new Float64Array(NUMBERS_PER_RECORD * records);
  }

  get size(): number {
    return this.paths.length;
  }

  /** Adds a record of a request answered at `answeredAt` (a performance.now()). */
  add(record: AccessRecord, answeredAt: number): void {
    const at = this.paths.length * NUMBERS_PER_RECORD;
    if (at === this.numbers.length) {
      const grown = new Float64Array(Math.max(this.numbers.length * 2, NUMBERS_PER_RECORD));
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[at] = record.status;
    this.numbers[at + 1] = record.bytes;
    this.numbers[at + 2] = record.durationMs;
    this.numbers[at + 3] = answeredAt;
    // Cut here, on the serving thread, so a long target never waits whole (a slice is copied by the clone).
    const path = record.path.length > MAX_PATH_LENGTH ? record.path.slice(0, MAX_PATH_LENGTH + 1) : record.path;
    const method = cutField(record.method);
    const token = record.token === null ? null : cutField(record.token);
    const client = record.client === null ? null : cutField(record.client);
    this.methods.push(method);
    this.paths.push(path);
    this.tokens.push(token);
    this.clients.push(client);
    this.bytes += NUMBER_BYTES + method.length + path.length + (token?.length ?? 0) + (client?.length ?? 0);
  }

  /**
   * The records added since the last take, as a batch handed over at `time` (a Date.now()) and
   * `now` (a performance.now()); the builder starts empty again.
   */
  take(time: number, now: number): RecordBatch {
    const batch: RecordBatch = {
      time,
      now,
      numbers: this.numbers.slice(0, this.paths.length * NUMBERS_PER_RECORD),
      bytes: this.bytes,
      methods: this.methods,
      paths: this.paths,
      tokens: this.tokens,
      clients: this.clients,
    };
    this.methods = [];
    this.paths = [];
    this.tokens = [];
    this.clients = [];
    this.bytes = 0;
    return batch;
  }
}

const cutField = (value: string): string =>
  value.length > MAX_FIELD_LENGTH ? value.slice(0, MAX_FIELD_LENGTH) : value;

/** The records of a batch, in the order they were added, each with the time of its answer. */
export function* recordsIn(batch: RecordBatch): Generator<TimedRecord> {
  const { numbers, methods, paths, tokens, clients } = batch;
  for (let index = 0; index < paths.length; index++) {
    const at = index * NUMBERS_PER_RECORD;
    yield {
      time: Math.round(batch.time - (batch.now - (numbers[at + 3] ?? batch.now))),
      record: {
        method: methods[index] ?? '',
        path: paths[index] ?? '',
        status: numbers[at] ?? 0,
        bytes: numbers[at + 1] ?? 0,
        durationMs: numbers[at + 2] ?? 0,
        token: tokens[index] ?? null,
        client: clients[index] ?? null,
      },
    };
  }
}
