// The access log's lines (src/server/access-log-lines.ts), as the log's thread makes them from
// the records in the ring; the lines over HTTP, from each process, are checked in
// test/reliability/rate-limits.test.ts.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type AccessRecord,
  MAX_PATH_LENGTH,
  RingReader,
  RingWriter,
  ringMemory,
} from '../../src/server/access-log-ring.ts';
import { ATOMIC_WRITE_BYTES, LineBatches, LineMaker, type LineSink } from '../../src/server/access-log-lines.ts';
import { accessRecord as record } from '../support/access-record.ts';

/** A sink that keeps each write as text. */
function memorySink(): LineSink & { writes: string[]; byteLengths: number[] } {
  const sink = {
    writes: [] as string[],
    byteLengths: [] as number[],
    write(chunk: Uint8Array) {
      sink.writes.push(Buffer.from(chunk).toString('utf8'));
      sink.byteLengths.push(chunk.byteLength);
    },
  };
  return sink;
}

/**
 * What a LineMaker hands its sink for `records`, written into a ring by the serving thread's
 * writer and read as the log's thread reads them; each line timed `times[i]`, or all `time`.
 */
function written(records: readonly AccessRecord[], time: number | readonly number[] = Date.now()) {
  const memory = ringMemory();
  const writer = new RingWriter(memory);
  for (const each of records) expect(writer.write(each, 0)).toBe(true);
  const sink = memorySink();
  const lines = new LineMaker(sink);
  let index = 0;
  new RingReader(memory).read((view) => lines.add(view, typeof time === 'number' ? time : (time[index++] ?? 0)));
  lines.end();
  return sink;
}

const linesOf = (writes: string[]) => writes.join('').split('\n').filter(Boolean);
const pathsOf = (writes: string[]) => linesOf(writes).map((line) => (JSON.parse(line) as AccessRecord).path);
/** The line JSON.stringify writes for `record` at `time`. */
const stringified = ({ method, path, status, bytes, durationMs, token, client }: AccessRecord, time: number) =>
  JSON.stringify({ time: new Date(time).toISOString(), method, path, status, bytes, durationMs, token, client });

describe('access log lines', () => {
  test('each line is one JSON object: time, method, path, status, bytes, duration, token, client', () => {
    const time = Date.UTC(2026, 10, 25, 23, 59, 1, 42);
    const sink = written(
      [record('/api/trees?search=Oak%20Tree', { status: 304, bytes: 0, durationMs: 1.5, token: null })],
      time,
    );
    const [line = ''] = linesOf(sink.writes);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['time', 'method', 'path', 'status', 'bytes', 'durationMs', 'token', 'client']);
    expect(parsed).toEqual({
      time: '2026-11-25T23:59:01.042Z',
      method: 'GET',
      path: '/api/trees?search=Oak%20Tree',
      status: 304,
      bytes: 0,
      durationMs: 1.5,
      token: null,
      client: '127.0.0.1',
    });
  });

  test("each line's time is its own record's", () => {
    const times = [Date.UTC(2026, 10, 25, 23, 59, 59, 998), Date.UTC(2026, 10, 26, 0, 0, 0, 3)];
    const sink = written([record('/api/trees'), record('/api/cutters')], times);
    expect(linesOf(sink.writes).map((line) => (JSON.parse(line) as { time: string }).time)).toEqual([
      '2026-11-25T23:59:59.998Z',
      '2026-11-26T00:00:00.003Z',
    ]);
  });

  test('the lines of the records read are handed on, whole, by end()', () => {
    const sink = written([record('/api/trees'), record('/api/cutters')]);
    expect(sink.writes).toHaveLength(1);
    expect(linesOf(sink.writes)).toHaveLength(2);
  });

  test("a line is its fields' JSON as JSON.stringify writes it: every string escaped where JSON needs it", () => {
    const time = Date.UTC(2026, 10, 27, 12, 0, 0, 5);
    // Every character a target can have: node:http gives each byte a character of its own.
    const everyByte = String.fromCharCode(...Array.from({ length: 256 }, (_, byte) => byte));
    const records = [
      record(`/api/trees?search=${everyByte}`, { method: 'G"ET', token: 'r\\"\n', client: '::1' }),
      record('/api/trees?search=Eiche\u00e9\u00ff', { durationMs: 12.345, bytes: 36_000, token: null, client: null }),
    ];
    expect(linesOf(written(records, time).writes)).toEqual(records.map((each) => stringified(each, time)));
  });

  test('numbers are written as JSON.stringify writes them: durations to the microsecond, any other number', () => {
    const time = Date.UTC(2026, 10, 27, 12, 0, 0, 5);
    const microseconds = fc.integer({ min: 0, max: 10 ** 12 }).map((micros) => micros / 1000);
    const anyNumber = fc.oneof(microseconds, fc.double(), fc.integer());
    fc.assert(
      fc.property(fc.array(fc.tuple(microseconds, anyNumber, fc.nat()), { minLength: 1, maxLength: 50 }), (rows) => {
        const records = rows.map(([durationMs, other, bytes]) => [
          record('/api/trees', { durationMs, bytes, status: 200 }),
          record('/api/trees', { durationMs: other, bytes: Math.abs(Math.trunc(other)), status: 404 }),
        ]);
        const flat = records.flat();
        // JSON has no NaN or infinity: JSON.stringify writes null, and so does the line.
        expect(linesOf(written(flat, time).writes)).toEqual(flat.map((each) => stringified(each, time)));
      }),
    );
  });

  test('lines are written whole, in order, in writes of at most one atomic pipe write (4096 bytes)', () => {
    // Characters of one, two and six bytes in a line, so writes fill up to every kind of character boundary.
    const paths = Array.from({ length: 400 }, (_, index) => `/api/trees/${'aé\u0001'.repeat(index % 40)}${index}`);
    const sink = written(paths.map((path) => record(path)));
    expect(sink.writes.length).toBeGreaterThan(1);
    for (const [index, write] of sink.writes.entries()) {
      expect(write.endsWith('\n')).toBe(true);
      expect(sink.byteLengths[index]).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
    }
    expect(linesOf(sink.writes).map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(paths);
  });

  /** A line of exactly `bytes` UTF-8 bytes, of `character` (1 to 4 bytes) and ASCII to make up the rest. */
  const lineOf = (bytes: number, character: string) => {
    const width = Buffer.byteLength(character);
    return `${character.repeat(Math.floor(bytes / width))}${'a'.repeat(bytes % width)}`;
  };

  /**
   * What LineBatches makes of `lines`: each refused line's excess over a chunk (0: taken), and
   * the sink's writes. Checks every write is whole lines within one atomic write.
   */
  function batched(lines: readonly string[]) {
    const sink = memorySink();
    const batches = new LineBatches(sink);
    const excess = lines.map((line) => batches.write(line));
    batches.end();
    for (const [index, write] of sink.writes.entries()) {
      expect(write.endsWith('\n')).toBe(true);
      expect(sink.byteLengths[index]).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
    }
    return { excess, written: sink.writes.join('').split('\n').slice(0, -1) };
  }

  const LONGEST = 3 * ATOMIC_WRITE_BYTES;

  test('a line of 1 byte to 3 chunks: written whole if it fits a chunk, else refused by its excess', () => {
    for (let bytes = 1; bytes <= LONGEST; bytes++) {
      // Each after a line of its own, so the chunk it lands in has had one line already.
      const lines = [lineOf(bytes, 'é'), lineOf(bytes, 'a'), 'next'];
      const fits = bytes + 1 <= ATOMIC_WRITE_BYTES;
      const { excess, written } = batched(lines);
      expect(excess).toEqual(fits ? [0, 0, 0] : [bytes + 1 - ATOMIC_WRITE_BYTES, bytes + 1 - ATOMIC_WRITE_BYTES, 0]);
      expect(written).toEqual(fits ? lines : ['next']);
    }
  });

  test('lines of any lengths, filling a chunk to its last byte or not: each that fits written whole, in order', () => {
    const character = fc.constantFrom('a', 'é', '€', '🌳');
    const bytes = fc.oneof(
      fc.integer({ min: 1, max: LONGEST }),
      // A line and its newline filling a chunk exactly, and its neighbours.
      fc.constantFrom(ATOMIC_WRITE_BYTES - 2, ATOMIC_WRITE_BYTES - 1, ATOMIC_WRITE_BYTES),
      fc.integer({ min: 1, max: 64 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(bytes, character), { minLength: 1, maxLength: 60 }), (shapes) => {
        const lines = shapes.map(([length, each]) => lineOf(length, each));
        const { excess, written } = batched(lines);
        expect(excess).toEqual(lines.map((line) => Math.max(Buffer.byteLength(line) + 1 - ATOMIC_WRITE_BYTES, 0)));
        expect(written).toEqual(lines.filter((_, index) => excess[index] === 0));
      }),
    );
  });

  test('a record of any target length makes one whole line within a chunk, a long one cut and marked', () => {
    // Targets whose lines run from a few hundred bytes to three chunks once escaped (\u0001: 6 bytes).
    const target = fc
      .tuple(fc.integer({ min: 1, max: 2100 }), fc.constantFrom('a', '\u0001', 'é', '"'))
      .map(([length, each]) => `/api/trees?search=${each.repeat(length)}`);
    fc.assert(
      fc.property(fc.array(target, { minLength: 1, maxLength: 30 }), (targets) => {
        const sink = written(targets.map((each) => record(each)));
        for (const length of sink.byteLengths) expect(length).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
        const paths = pathsOf(sink.writes);
        expect(paths).toHaveLength(targets.length);
        for (const [index, path] of paths.entries()) {
          const sent = targets[index] ?? '';
          if (path !== sent) expect(sent.startsWith(path.slice(0, -1)) && path.endsWith('…')).toBe(true);
        }
      }),
    );
  });

  test('no line passes one atomic write: a target long once escaped is cut to fit, at a character, marked', () => {
    const search = '/api/trees?search=';
    const targets = [
      `${search}${'\\'.repeat(2100)}`,
      `${search}${'"'.repeat(2100)}`,
      `${search}${'\u0001'.repeat(2100)}`,
      `${search}${'é'.repeat(2100)}`,
      `${search}${'\u00ff'.repeat(2100)}`,
      `${search}${'a\u0001'.repeat(1050)}`,
    ];
    for (const target of targets) {
      const sink = written([record('/api/trees'), record(target), record('/api/gifts')]);
      for (const length of sink.byteLengths) expect(length).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
      const lines = linesOf(sink.writes);
      const paths = lines.map((line) => (JSON.parse(line) as AccessRecord).path);
      expect(paths[0]).toBe('/api/trees');
      expect(paths[2]).toBe('/api/gifts');
      const cut = paths[1] ?? '';
      expect(cut.endsWith('…')).toBe(true);
      expect(target.startsWith(cut.slice(0, -1))).toBe(true);
      // Cut no shorter than it has to be: one more character (at most 6 bytes escaped) would not fit.
      expect(Buffer.byteLength(`${lines[1]}\n`)).toBeGreaterThan(ATOMIC_WRITE_BYTES - 6);
    }
  });

  test('request targets longer than 2048 characters are cut, and the cut is marked', () => {
    const sink = written([record(`/api/trees?search=${'a'.repeat(5000)}`)]);
    const { path } = JSON.parse(sink.writes[0] ?? '') as AccessRecord;
    expect(path).toBe(`/api/trees?search=${'a'.repeat(MAX_PATH_LENGTH - 18)}…`);
  });

  test('credential-looking query values are written ***, in any letter case, the name percent-encoded or not', () => {
    const names = ['token', 'api_key', 'key', 'access_token', 'auth', 'password'];
    const spellings = names.flatMap((name) => [
      name,
      name.toUpperCase(),
      `${name.charAt(0).toUpperCase()}${name.slice(1)}`,
      `%${name.charCodeAt(0).toString(16)}${name.slice(1)}`,
      `%${name.charCodeAt(0).toString(16).toUpperCase()}${name.slice(1).toUpperCase()}`,
    ]);
    const sink = written([
      ...spellings.map((name) => record(`/api/trees?search=oak&${name}=s3cr%2Ft&page=2`)),
      record('/api/trees?token=s3cret'),
      record('/api/trees?key=one&auth=two'),
      record('/api/trees?token=&key'),
    ]);
    expect(pathsOf(sink.writes)).toEqual([
      ...spellings.map((name) => `/api/trees?search=oak&${name}=***&page=2`),
      '/api/trees?token=***',
      '/api/trees?key=***&auth=***',
      '/api/trees?token=***&key',
    ]);
  });

  test('other query parameters, and credential names elsewhere in the target, are logged as sent', () => {
    const targets = [
      '/api/trees?search=token',
      '/api/trees?keys=1&monkey=2&tokens=3&auth_mode=4',
      '/api/token=1/trees',
      '/api/trees?token',
      '/api/trees?search=Oak%20Tree',
    ];
    expect(pathsOf(written(targets.map((target) => record(target))).writes)).toEqual(targets);
  });

  test('the time field is the ISO 8601 time of the line to the millisecond, across seconds and days', () => {
    const times = [
      Date.UTC(2026, 10, 23, 20, 30, 0, 0),
      Date.UTC(2026, 10, 23, 20, 30, 0, 7),
      Date.UTC(2026, 10, 23, 20, 30, 0, 42),
      Date.UTC(2026, 10, 23, 20, 30, 0, 999),
      Date.UTC(2026, 10, 23, 20, 30, 1, 0),
      Date.UTC(2026, 10, 23, 23, 59, 59, 999),
      Date.UTC(2026, 10, 24, 0, 0, 0, 1),
      Date.UTC(2026, 10, 23, 20, 30, 0, 500), // a clock set back
    ];
    const sink = written(
      times.map(() => record('/api/trees')),
      times,
    );
    expect(linesOf(sink.writes).map((line) => (JSON.parse(line) as { time: string }).time)).toEqual(
      times.map((time) => new Date(time).toISOString()),
    );
  });
});
