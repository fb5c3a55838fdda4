// The access log's own pieces (src/server/access-log.ts); the lines over HTTP, from each
// process, are checked in test/reliability/rate-limits.test.ts.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import {
  ATOMIC_WRITE_BYTES,
  type AccessRecord,
  accessLog,
  isoTimestamp,
  type LineSink,
  MAX_PATH_LENGTH,
} from '../../src/server/access-log.ts';

/** A sink that keeps each write as text, and counts its flushes. */
function memorySink(): LineSink & { writes: string[]; byteLengths: number[]; flushes: number } {
  const sink = {
    writes: [] as string[],
    byteLengths: [] as number[],
    flushes: 0,
    write(chunk: Uint8Array) {
      sink.writes.push(Buffer.from(chunk).toString('utf8'));
      sink.byteLengths.push(chunk.byteLength);
    },
    flushSync() {
      sink.flushes++;
    },
  };
  return sink;
}

const record = (path: string, overrides: Partial<AccessRecord> = {}): AccessRecord => ({
  method: 'GET',
  path,
  status: 200,
  bytes: 612,
  durationMs: 0.25,
  token: 'reader',
  client: '127.0.0.1',
  ...overrides,
});

const linesOf = (writes: string[]) => writes.join('').split('\n').filter(Boolean);

describe('access log', () => {
  test('a request only queues its line: it is made and written after the turn it was answered in', async () => {
    const sink = memorySink();
    const log = accessLog(sink);
    log.add(record('/api/trees'));
    log.add(record('/api/cutters'));
    expect(sink.writes).toEqual([]);
    await nextTurn();
    expect(linesOf(sink.writes)).toHaveLength(2);
  });

  test('each line is one JSON object: time, method, path, status, bytes, duration, token, client', async () => {
    const sink = memorySink();
    const log = accessLog(sink);
    const before = Date.now();
    log.add(record('/api/trees?search=Oak%20Tree', { status: 304, bytes: 0, durationMs: 1.5, token: null }));
    await nextTurn();
    const [line = ''] = linesOf(sink.writes);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['time', 'method', 'path', 'status', 'bytes', 'durationMs', 'token', 'client']);
    expect(parsed).toMatchObject({ path: '/api/trees?search=Oak%20Tree', status: 304, bytes: 0, durationMs: 1.5 });
    expect(parsed.token).toBeNull();
    const time = Date.parse(String(parsed.time));
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now());
  });

  test('lines are written whole, in order, in writes of at most one atomic pipe write (4096 bytes)', async () => {
    const sink = memorySink();
    const log = accessLog(sink);
    // Two-, three- and four-byte characters, so writes fill up to every kind of character boundary.
    const paths = Array.from({ length: 400 }, (_, index) => `/api/trees/${'é€😀'.repeat(index % 40)}${index}`);
    for (const path of paths) log.add(record(path));
    await nextTurn();
    expect(sink.writes.length).toBeGreaterThan(1);
    for (const [index, write] of sink.writes.entries()) {
      expect(write.endsWith('\n')).toBe(true);
      expect(sink.byteLengths[index]).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
    }
    expect(linesOf(sink.writes).map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(paths);
  });

  test('a line longer than one atomic write goes in a write of its own, whole', async () => {
    const sink = memorySink();
    const log = accessLog(sink);
    const long = `/${'é'.repeat(MAX_PATH_LENGTH - 1)}`;
    log.add(record('/api/trees'));
    log.add(record(long));
    log.add(record('/api/gifts'));
    await nextTurn();
    expect(sink.writes).toHaveLength(3);
    expect(sink.byteLengths[1]).toBeGreaterThan(ATOMIC_WRITE_BYTES);
    expect((JSON.parse(sink.writes[1] ?? '') as AccessRecord).path).toBe(long);
  });

  test('request targets longer than 2048 characters are cut, and the cut is marked', async () => {
    const sink = memorySink();
    const log = accessLog(sink);
    log.add(record(`/api/trees?search=${'a'.repeat(5000)}`));
    await nextTurn();
    const { path } = JSON.parse(sink.writes[0] ?? '') as AccessRecord;
    expect(path).toBe(`/api/trees?search=${'a'.repeat(MAX_PATH_LENGTH - 18)}…`);
  });

  test('flushSync makes and writes every queued line at once, then flushes the sink', () => {
    const sink = memorySink();
    const log = accessLog(sink);
    for (let index = 0; index < 50; index++) log.add(record(`/api/trees/${index}`));
    log.flushSync();
    expect(linesOf(sink.writes)).toHaveLength(50);
    expect(sink.flushes).toBe(1);
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
