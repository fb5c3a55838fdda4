// The access log's lines (src/server/access-log-lines.ts), as the log's thread makes them; the
// lines over HTTP, from each process, are checked in test/reliability/rate-limits.test.ts.
import { describe, expect, test } from 'vitest';
import { type AccessRecord, MAX_PATH_LENGTH, type TimedRecord } from '../../src/server/access-log-batch.ts';
import { ATOMIC_WRITE_BYTES, isoTimestamp, LineMaker, type LineSink } from '../../src/server/access-log-lines.ts';
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

const linesOf = (writes: string[]) => writes.join('').split('\n').filter(Boolean);

/** The records, each timed `time`. */
const timed = (records: AccessRecord[], time = Date.now()): TimedRecord[] =>
  records.map((each) => ({ time, record: each }));

describe('access log lines', () => {
  test('each line is one JSON object: time, method, path, status, bytes, duration, token, client', () => {
    const sink = memorySink();
    const time = Date.UTC(2026, 10, 25, 23, 59, 1, 42);
    new LineMaker(sink).write(
      timed([record('/api/trees?search=Oak%20Tree', { status: 304, bytes: 0, durationMs: 1.5, token: null })], time),
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
    const sink = memorySink();
    const times = [Date.UTC(2026, 10, 25, 23, 59, 59, 998), Date.UTC(2026, 10, 26, 0, 0, 0, 3)];
    new LineMaker(sink).write(times.map((time) => ({ time, record: record('/api/trees') })));
    expect(linesOf(sink.writes).map((line) => (JSON.parse(line) as { time: string }).time)).toEqual([
      '2026-11-25T23:59:59.998Z',
      '2026-11-26T00:00:00.003Z',
    ]);
  });

  test('the lines of records are written before write() returns', () => {
    const sink = memorySink();
    new LineMaker(sink).write(timed([record('/api/trees'), record('/api/cutters')]));
    expect(linesOf(sink.writes)).toHaveLength(2);
  });

  test('lines are written whole, in order, in writes of at most one atomic pipe write (4096 bytes)', () => {
    const sink = memorySink();
    // Two-, three- and four-byte characters, so writes fill up to every kind of character boundary.
    const paths = Array.from({ length: 400 }, (_, index) => `/api/trees/${'é€😀'.repeat(index % 40)}${index}`);
    new LineMaker(sink).write(timed(paths.map((path) => record(path))));
    expect(sink.writes.length).toBeGreaterThan(1);
    for (const [index, write] of sink.writes.entries()) {
      expect(write.endsWith('\n')).toBe(true);
      expect(sink.byteLengths[index]).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
    }
    expect(linesOf(sink.writes).map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(paths);
  });

  test('a line longer than one atomic write goes in a write of its own, whole', () => {
    const sink = memorySink();
    const long = `/${'é'.repeat(MAX_PATH_LENGTH - 1)}`;
    new LineMaker(sink).write(timed([record('/api/trees'), record(long), record('/api/gifts')]));
    expect(sink.writes).toHaveLength(3);
    expect(sink.byteLengths[1]).toBeGreaterThan(ATOMIC_WRITE_BYTES);
    expect((JSON.parse(sink.writes[1] ?? '') as AccessRecord).path).toBe(long);
  });

  test('request targets longer than 2048 characters are cut, and the cut is marked', () => {
    const sink = memorySink();
    new LineMaker(sink).write(timed([record(`/api/trees?search=${'a'.repeat(5000)}`)]));
    const { path } = JSON.parse(sink.writes[0] ?? '') as AccessRecord;
    expect(path).toBe(`/api/trees?search=${'a'.repeat(MAX_PATH_LENGTH - 18)}…`);
  });

  test('the time field is the ISO 8601 time of the line to the millisecond, across seconds and days', () => {
    let now = 0;
    const timestamp = isoTimestamp(() => now);
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
    for (const time of times) {
      now = time;
      expect(timestamp()).toBe(`"time":"${new Date(time).toISOString()}"`);
    }
  });
});
