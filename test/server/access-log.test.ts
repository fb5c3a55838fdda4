// The access log on the serving thread (src/server/access-log.ts): records go in batches, after
// the turn they were added in, to the log's own thread, which writes their lines. The lines
// themselves: access-log-lines.test.ts; over HTTP, from each process: test/reliability.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { type AccessRecord, BatchBuilder, type RecordBatch, recordsIn } from '../../src/server/access-log-batch.ts';
import { accessLog, type BatchWriter, LogThread } from '../../src/server/access-log.ts';

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

/** A writer that keeps each batch, and counts its flushes. */
function memoryWriter(): BatchWriter & { batches: RecordBatch[]; flushes: number } {
  const writer = {
    batches: [] as RecordBatch[],
    flushes: 0,
    write(batch: RecordBatch) {
      writer.batches.push(batch);
    },
    flushSync() {
      writer.flushes++;
    },
  };
  return writer;
}

describe('access log', () => {
  test("a request only adds its record: the turn's records are handed on together after that turn", async () => {
    const writer = memoryWriter();
    const log = accessLog(writer);
    log.add(record('/api/trees'));
    log.add(record('/api/cutters'));
    expect(writer.batches).toEqual([]);
    await nextTurn();
    expect(writer.batches.map((batch) => [...recordsIn(batch)].map(({ path }) => path))).toEqual([
      ['/api/trees', '/api/cutters'],
    ]);
  });

  test('a batch is timed when it is handed on, the time of its lines', async () => {
    const writer = memoryWriter();
    const log = accessLog(writer);
    const before = Date.now();
    log.add(record('/api/trees'));
    await nextTurn();
    expect(writer.batches[0]?.time).toBeGreaterThanOrEqual(before);
    expect(writer.batches[0]?.time).toBeLessThanOrEqual(Date.now());
  });

  test('flushSync hands on the records added so far at once, then waits for the writer', () => {
    const writer = memoryWriter();
    const log = accessLog(writer);
    for (let index = 0; index < 50; index++) log.add(record(`/api/trees/${index}`));
    log.flushSync();
    expect(writer.batches.flatMap((batch) => [...recordsIn(batch)])).toHaveLength(50);
    expect(writer.flushes).toBe(1);
  });

  test('a batch carries every field of every record, in order, with a missing token and client', () => {
    const records = [
      record('/api/trees?search=Oak%20Tree', { status: 304, bytes: 0, durationMs: 1.125 }),
      record('/api/gifts', { method: 'HEAD', status: 401, token: null, client: null }),
      ...Array.from({ length: 600 }, (_, index) =>
        record(`/api/trees/${index}`, { bytes: index, durationMs: index / 7 }),
      ),
    ];
    const builder = new BatchBuilder();
    for (const each of records) builder.add(each);
    expect([...recordsIn(builder.take(0))]).toEqual(records);
    expect(builder.size).toBe(0);
    builder.add(records[0] as AccessRecord);
    expect([...recordsIn(builder.take(0))]).toEqual([records[0]]);
  });
});

describe("the log's thread", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A LogThread writing to a fresh file; `text()` reads what it wrote. */
  function threadOnFile() {
    const dir = mkdtempSync(join(tmpdir(), 'access-log-'));
    const file = join(dir, 'log');
    const fd = openSync(file, 'w');
    const thread = new LogThread(fd);
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => closeSync(fd),
      () => thread.terminate(),
    );
    return { thread, text: () => readFileSync(file, 'utf8') };
  }

  test("every line handed to the log's thread is written when flushSync returns", () => {
    const { thread, text } = threadOnFile();
    const log = accessLog(thread);
    const paths = Array.from({ length: 300 }, (_, index) => `/api/trees/${index}`);
    for (const path of paths) log.add(record(path));
    log.flushSync();
    const lines = text().split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(paths);
  });

  test("batches handed on turn after turn reach the log's file in order", async () => {
    const { thread, text } = threadOnFile();
    const log = accessLog(thread);
    for (let turn = 0; turn < 20; turn++) {
      log.add(record(`/api/trees/${turn}`));
      await nextTurn();
    }
    log.flushSync();
    const paths = text()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as AccessRecord).path);
    expect(paths).toEqual(Array.from({ length: 20 }, (_, turn) => `/api/trees/${turn}`));
  });
});
