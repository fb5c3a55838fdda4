// The access log on the serving thread (src/server/access-log.ts): records go in batches to the
// log's own thread, which writes their lines. The lines
// themselves: access-log-lines.test.ts; over HTTP, from each process: test/reliability.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, read, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  type AccessRecord,
  BatchBuilder,
  MAX_PATH_LENGTH,
  type RecordBatch,
  recordsIn,
} from '../../src/server/access-log-batch.ts';
import {
  accessLog,
  BATCH_DELAY_MS,
  BATCH_RECORDS,
  type BatchWriter,
  LogThread,
  MAX_WAITING_BYTES,
  MAX_WAITING_RECORDS,
  stillWaiting,
} from '../../src/server/access-log.ts';
import { accessRecord as record } from '../support/access-record.ts';

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

/** The paths of the records in `batches`, batch by batch. */
const pathsIn = (batches: RecordBatch[]) =>
  batches.map((batch) => [...recordsIn(batch)].map(({ record }) => record.path));

describe('access log', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test(`a request only adds its record: a batch is handed on ${BATCH_DELAY_MS} ms after its first record`, () => {
    vi.useFakeTimers();
    const writer = memoryWriter();
    const log = accessLog(writer);
    log.add(record('/api/trees'), performance.now());
    vi.advanceTimersByTime(BATCH_DELAY_MS / 2);
    log.add(record('/api/cutters'), performance.now());
    vi.advanceTimersByTime(BATCH_DELAY_MS / 2 - 1);
    expect(writer.batches).toEqual([]);
    vi.advanceTimersByTime(1);
    log.add(record('/api/gifts'), performance.now());
    vi.advanceTimersByTime(BATCH_DELAY_MS);
    expect(pathsIn(writer.batches)).toEqual([['/api/trees', '/api/cutters'], ['/api/gifts']]);
  });

  test(`a batch of ${BATCH_RECORDS} records is handed on at once`, () => {
    const writer = memoryWriter();
    const log = accessLog(writer);
    for (let index = 0; index < BATCH_RECORDS - 1; index++) log.add(record(`/api/trees/${index}`), performance.now());
    expect(writer.batches).toEqual([]);
    log.add(record('/api/gifts'), performance.now());
    expect(writer.batches).toHaveLength(1);
    expect(pathsIn(writer.batches)[0]).toHaveLength(BATCH_RECORDS);
  });

  test('flushSync hands on the records added so far at once, then waits for the writer', () => {
    const writer = memoryWriter();
    const log = accessLog(writer);
    for (let index = 0; index < 50; index++) log.add(record(`/api/trees/${index}`), performance.now());
    log.flushSync();
    expect(pathsIn(writer.batches).flat()).toHaveLength(50);
    expect(writer.flushes).toBe(1);
  });

  test("a line's time is when its request was answered, not when its batch was handed on", () => {
    const builder = new BatchBuilder(BATCH_RECORDS);
    builder.add(record('/api/trees'), 1000.25);
    builder.add(record('/api/gifts'), 1015.5);
    const handedOn = Date.UTC(2026, 10, 26, 0, 0, 0, 0);
    const times = [...recordsIn(builder.take(handedOn, 1020.5))].map(({ time }) => time);
    expect(times).toEqual([handedOn - 20, handedOn - 5]);
  });

  test('a batch carries every field of every record, in order, with a missing token and client', () => {
    const records = [
      record('/api/trees?search=Oak%20Tree', { status: 304, bytes: 0, durationMs: 1.125 }),
      record('/api/gifts', { method: 'HEAD', status: 401, token: null, client: null }),
      ...Array.from({ length: 600 }, (_, index) =>
        record(`/api/trees/${index}`, { bytes: index, durationMs: index / 7 }),
      ),
    ];
    const builder = new BatchBuilder(BATCH_RECORDS);
    for (const each of records) builder.add(each, 0);
    expect([...recordsIn(builder.take(0, 0))].map(({ record }) => record)).toEqual(records);
    expect(builder.size).toBe(0);
    builder.add(records[0] as AccessRecord, 0);
    expect([...recordsIn(builder.take(0, 0))].map(({ record }) => record)).toEqual([records[0]]);
  });

  test('a long target is cut as its record is added, before it waits: the batch holds and counts no more', () => {
    const target = `/api/trees?search=${'a'.repeat(15_000)}`;
    const builder = new BatchBuilder(BATCH_RECORDS);
    builder.add(record(target, { token: 'r'.repeat(500), client: '1'.repeat(500) }), 0);
    const batch = builder.take(0, 0);
    const [{ record: kept } = { record: record('') }] = recordsIn(batch);
    // One character more than is shown: the sign, for the log's thread, that it was cut.
    expect(kept.path).toBe(target.slice(0, MAX_PATH_LENGTH + 1));
    expect(kept.token).toHaveLength(64);
    expect(kept.client).toHaveLength(64);
    expect(batch.bytes).toBe(8 * 8 + 'GET'.length + MAX_PATH_LENGTH + 1 + 64 + 64);
  });
});

/** The next `count` lines read from `fd` (a pipe), without reading past them. */
async function readLines(fd: number, count: number): Promise<string[]> {
  const readChunk = promisify(read);
  const lines: string[] = [];
  let partial = '';
  const chunk = Buffer.alloc(1 << 16);
  while (lines.length < count) {
    const { bytesRead } = await readChunk(fd, chunk, 0, chunk.length, null);
    const [first, ...rest] = `${partial}${chunk.toString('utf8', 0, bytesRead)}`.split('\n').reverse();
    partial = first ?? '';
    lines.push(...rest.reverse());
  }
  return lines;
}

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
    for (const path of paths) log.add(record(path), performance.now());
    log.flushSync();
    const lines = text().split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(paths);
  });

  test("batch after batch reaches the log's file in order, those of the timer and of size alike", async () => {
    const { thread, text } = threadOnFile();
    const log = accessLog(thread);
    const paths = Array.from({ length: 3 * BATCH_RECORDS }, (_, index) => `/api/trees/${index}`);
    for (const [index, path] of paths.entries()) {
      log.add(record(path), performance.now());
      // Now and then a pause, in which the batch so far goes by its timer.
      if (index % 100 === 99) await sleep(2 * BATCH_DELAY_MS);
    }
    log.flushSync();
    const written = text()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as AccessRecord).path);
    expect(written).toEqual(paths);
  });

  /**
   * A LogThread writing to a FIFO that nothing reads until the test does (`fd` reads it), with
   * stderr caught; `exitWaitMs` as LogThread takes it.
   */
  function threadOnStalledPipe(exitWaitMs?: number) {
    const dir = mkdtempSync(join(tmpdir(), 'access-log-'));
    const fifo = join(dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    // Read and write: opening waits for no reader, and the thread's writes block once the pipe is full.
    const fd = openSync(fifo, 'r+');
    const thread = new LogThread(fd, exitWaitMs);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => closeSync(fd),
      () => thread.terminate(),
      () => stderr.mockRestore(),
    );
    return { thread, fd, stderr };
  }

  /**
   * Hands the thread `paths` in batches of 1024 records, whose lines are far more than a pipe
   * holds, so with nothing reading the thread finishes none of them.
   */
  function writeInBatches(thread: LogThread, paths: readonly string[]): void {
    const perBatch = 1024;
    for (let start = 0; start < paths.length; start += perBatch) {
      const batch = new BatchBuilder(perBatch);
      for (const path of paths.slice(start, start + perBatch)) batch.add(record(path), performance.now());
      thread.write(batch.take(Date.now(), performance.now()));
    }
  }

  const pathsNumbered = (count: number) => Array.from({ length: count }, (_, index) => `/api/trees/${index}`);
  const droppedLine = (dropped: number) =>
    `Access log: ${dropped} lines dropped: stdout took lines more slowly than requests came ` +
    `(at most ${MAX_WAITING_RECORDS} records or 8 MiB wait to be written).\n`;

  test(`a stalled stdout: ${MAX_WAITING_RECORDS} records wait, the rest are dropped, counted on stderr`, async () => {
    const { thread, fd, stderr } = threadOnStalledPipe();
    const dropped = 3 * 1024;
    const paths = pathsNumbered(MAX_WAITING_RECORDS + dropped);
    writeInBatches(thread, paths);
    expect(stderr).not.toHaveBeenCalled();

    const written = await readLines(fd, MAX_WAITING_RECORDS);
    expect(written.map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(paths.slice(0, MAX_WAITING_RECORDS));
    expect(thread.waitForLines()).toBe(0);
    const next = new BatchBuilder(1);
    next.add(record('/api/gifts'), performance.now());
    thread.write(next.take(Date.now(), performance.now()));
    expect(stderr.mock.calls).toEqual([[droppedLine(dropped)]]);
    const [line] = await readLines(fd, 1);
    expect((JSON.parse(line ?? '') as AccessRecord).path).toBe('/api/gifts');
  }, 120_000);

  test(`a stalled stdout: records wait up to ${MAX_WAITING_BYTES} bytes, the rest are dropped, counted`, async () => {
    const { thread, fd, stderr } = threadOnStalledPipe();
    // 15 KB targets, numbered first so the number survives the cut.
    const long = 'a'.repeat(15_000);
    const paths = Array.from({ length: 6 * 1024 }, (_, index) => `/api/trees/${index}?search=${long}`);
    const sample = new BatchBuilder(1024);
    for (const path of paths.slice(0, 1024)) sample.add(record(path), 0);
    const batchBytes = sample.take(0, 0).bytes;
    // Far fewer records than MAX_WAITING_RECORDS: the bytes are the bound that holds.
    const waiting = Math.floor(MAX_WAITING_BYTES / batchBytes) * 1024;
    expect(waiting).toBeLessThan(paths.length);
    writeInBatches(thread, paths);
    expect(stderr).not.toHaveBeenCalled();

    const written = await readLines(fd, waiting);
    expect(written.map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(
      paths.slice(0, waiting).map((path) => `${path.slice(0, MAX_PATH_LENGTH)}…`),
    );
    expect(thread.waitForLines()).toBe(0);
    const next = new BatchBuilder(1);
    next.add(record('/api/gifts'), performance.now());
    thread.write(next.take(Date.now(), performance.now()));
    expect(stderr.mock.calls).toEqual([[droppedLine(paths.length - waiting)]]);
  }, 120_000);

  test('at exit, records dropped and not said since are counted on stderr', async () => {
    const { thread, fd, stderr } = threadOnStalledPipe();
    writeInBatches(thread, pathsNumbered(MAX_WAITING_RECORDS + 2048));
    await readLines(fd, MAX_WAITING_RECORDS);
    thread.flushSync();
    expect(stderr.mock.calls).toEqual([[droppedLine(2048)]]);
  }, 120_000);

  test('at exit, lines stdout did not take in the wait are counted on stderr', () => {
    const { thread, fd, stderr } = threadOnStalledPipe(100);
    writeInBatches(thread, pathsNumbered(1024));
    // Read once the test is done, pass or fail (cleanups run last first), so the thread can be stopped.
    cleanups.push(() => readLines(fd, 1024));
    // Nothing reads: the wait runs out, however fast the thread.
    thread.flushSync();
    expect(stderr.mock.calls).toEqual([
      [
        'Access log: up to 1024 lines not written: stdout did not take them ' +
          'in the 0.1 s the server waited before exiting.\n',
      ],
    ]);
  }, 120_000);

  test('the records (and bytes) waiting are counted right when the running counts pass 2^31 and wrap', () => {
    const written = new Int32Array(1);
    written[0] = 2 ** 31 - 10;
    const posted = (2 ** 31 - 10 + 30) | 0;
    expect(posted).toBeLessThan(0);
    expect(stillWaiting(posted, Atomics.load(written, 0))).toBe(30);
    Atomics.add(written, 0, 25);
    expect(stillWaiting(posted, Atomics.load(written, 0))).toBe(5);
  });

  test('a failed thread ends the log with a line on stderr; later records are dropped, not waited for', async () => {
    const { thread, text } = threadOnFile();
    const stderrLines: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write');
    cleanups.push(() => stderr.mockRestore());
    const stopped = () => stderrLines.filter((line) => line.startsWith('Access log stopped'));
    const firstStopLine = new Promise<string>((resolve) => {
      stderr.mockImplementation((chunk) => {
        stderrLines.push(String(chunk));
        if (stopped().length > 0) resolve(stopped()[0] ?? '');
        return true;
      });
    });
    const batch = new BatchBuilder(BATCH_RECORDS);
    batch.add(record('/api/trees'), performance.now());
    // A batch the thread cannot read: reading it throws there, uncaught, and the thread ends.
    thread.write({ ...batch.take(Date.now(), performance.now()), text: null as unknown as string });
    expect(await firstStopLine).toMatch(/^Access log stopped: its thread failed \(.+\)\.\n$/);

    const log = accessLog(thread);
    log.add(record('/api/cutters'), performance.now());
    const flushStarted = performance.now();
    log.flushSync();
    // A live thread that never answers is waited for 10 s; a failed one not at all.
    expect(performance.now() - flushStarted).toBeLessThan(5_000);
    expect(text()).toBe('');
    expect(stopped()).toHaveLength(1);
    // Room for a thread that starts slowly on a loaded machine.
  }, 120_000);
});
