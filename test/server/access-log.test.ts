// The access log on the serving thread (src/server/access-log.ts): records go through a ring of
// shared memory (access-log-ring.ts) to the log's own thread, which writes their lines. The lines
// themselves: access-log-lines.unit.test.ts; over HTTP, from each process: test/reliability.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, read, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  type AccessRecord,
  HEAD,
  MAX_FIELD_LENGTH,
  MAX_PATH_LENGTH,
  type RingMemory,
  ringMemory,
  RingReader,
  RingWriter,
  SLEEPING,
} from '../../src/server/access-log-ring.ts';
import { accessLog, DROPPED_NOTICE_MS, LogThread, stillWaiting } from '../../src/server/access-log.ts';
import { readAll, accessRecord as record } from '../support/access-record.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

describe('the ring between the serving thread and the log', () => {
  test('records come out as they went in, in order, over and over across the end of the ring', () => {
    const memory = ringMemory(1024);
    const writer = new RingWriter(memory);
    const reader = new RingReader(memory);
    const records: AccessRecord[] = Array.from({ length: 200 }, (_, index) =>
      record(`/api/trees/${'x'.repeat(index % 37)}?n=${index}`, {
        status: 200 + (index % 3),
        bytes: index * 11,
        durationMs: index / 7,
        token: index % 5 === 0 ? null : `token-${index % 4}`,
        client: index % 7 === 0 ? null : '2001:db8::1',
        method: index % 2 === 0 ? 'GET' : 'HEAD',
      }),
    );
    const out: { answeredAt: number; record: AccessRecord }[] = [];
    // A few at a time, so writes wrap around the 1 KiB ring many times.
    for (let from = 0; from < records.length; from += 3) {
      for (const [offset, each] of records.slice(from, from + 3).entries())
        expect(writer.write(each, from + offset)).toBe(true);
      out.push(...readAll(reader));
    }
    expect(out.map(({ record: each }) => each)).toEqual(records);
    expect(out.map(({ answeredAt }) => answeredAt)).toEqual(records.map((_, index) => index));
    expect(reader.empty).toBe(true);
  });

  test('a long target is cut as its record is written, before it waits: the ring holds no more', () => {
    const memory = ringMemory();
    const writer = new RingWriter(memory);
    const target = `/api/trees?search=${'a'.repeat(15_000)}`;
    writer.write(record(target, { token: 'r'.repeat(500), client: '1'.repeat(500) }), 0);
    const [{ record: kept } = { record: record('') }] = readAll(new RingReader(memory));
    // One character more than is shown: the sign, for the log's thread, that it was cut.
    expect(kept.path).toBe(target.slice(0, MAX_PATH_LENGTH + 1));
    expect(kept.token).toHaveLength(MAX_FIELD_LENGTH);
    expect(kept.client).toHaveLength(MAX_FIELD_LENGTH);
    // Eight numbers, then the characters a byte each, to whole 8-byte units.
    const chars = 'GET'.length + MAX_PATH_LENGTH + 1 + 2 * MAX_FIELD_LENGTH;
    expect(Atomics.load(memory.control, HEAD)).toBe(8 + Math.ceil(chars / 8));
  });

  test('a full ring takes no record until the reader has read what waits', () => {
    const memory = ringMemory(4096);
    const writer = new RingWriter(memory);
    const reader = new RingReader(memory);
    const numbered = (index: number) => `/api/trees/${String(index).padStart(4, '0')}`;
    let written = 0;
    while (writer.write(record(numbered(written)), 0)) written++;
    expect(written).toBeGreaterThan(10);
    expect(writer.write(record(numbered(written)), 0)).toBe(false);
    expect(readAll(reader).map(({ record: each }) => each.path)).toEqual(
      Array.from({ length: written }, (_, index) => numbered(index)),
    );
    expect(writer.write(record(numbered(written)), 0)).toBe(true);
    expect(readAll(reader).map(({ record: each }) => each.path)).toEqual([numbered(written)]);
  });

  test('a method, token or client the record before had is not written again: the record carries its target', () => {
    const memory = ringMemory();
    const writer = new RingWriter(memory);
    const first = record('/api/trees', { token: 'reader', client: '2001:db8::1' });
    writer.write(first, 0);
    const afterFirst = Atomics.load(memory.control, HEAD);
    const second = record('/api/cutters', { token: 'reader', client: '2001:db8::1' });
    writer.write(second, 1);
    // Eight numbers and the 12 characters of "/api/cutters", to whole 8-byte units.
    expect(Atomics.load(memory.control, HEAD) - afterFirst).toBe(8 + 2);
    const third = record('/api/gifts', { method: 'HEAD', token: null, client: '2001:db8::1' });
    writer.write(third, 2);
    expect(readAll(new RingReader(memory)).map(({ record: each }) => each)).toEqual([first, second, third]);
  });

  test('a record the ring had no room for is not the record before: the next one is written whole', () => {
    const memory = ringMemory(1024);
    const writer = new RingWriter(memory);
    const reader = new RingReader(memory);
    while (writer.write(record('/api/trees/oak', { token: 'reader' }), 0));
    // Refused: its token must not count as the one the reader last saw.
    expect(writer.write(record('/api/trees/ash', { token: 'writer' }), 0)).toBe(false);
    readAll(reader);
    const next = record('/api/trees/elm', { token: 'writer' });
    expect(writer.write(next, 0)).toBe(true);
    expect(readAll(reader).map(({ record: each }) => each)).toEqual([next]);
  });

  test('a target comes out as node:http gives it, one byte a character (bytes past ASCII too)', () => {
    const memory = ringMemory();
    // How node:http gives a target sent as UTF-8 bytes: each byte a character of its own.
    const target = `/api/trees?search=${Buffer.from('Eiche é 🌳', 'utf8').toString('latin1')}\u00ff`;
    const each = record(target);
    new RingWriter(memory).write(each, 0);
    expect(readAll(new RingReader(memory)).map(({ record: out }) => out)).toEqual([each]);
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
  function threadOnFile(ring: RingMemory = ringMemory(), say?: (line: string) => unknown) {
    const dir = temporaryFolder('access-log-');
    const file = join(dir, 'log');
    const fd = openSync(file, 'w');
    const thread = accessLog(fd, { ring, ...(say ? { say } : {}) });
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => closeSync(fd),
      () => thread.terminate(),
    );
    return { thread, text: () => readFileSync(file, 'utf8') };
  }

  const pathsIn = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as AccessRecord).path);

  test('every line added is written when flushSync returns', () => {
    const { thread, text } = threadOnFile();
    const paths = Array.from({ length: 300 }, (_, index) => `/api/trees/${index}`);
    for (const path of paths) thread.add(record(path), performance.now());
    thread.flushSync();
    expect(pathsIn(text())).toEqual(paths);
  });

  test('a record added while the thread sleeps on an empty ring wakes it: its line comes without a flush', () => {
    const ring = ringMemory();
    const { thread, text } = threadOnFile(ring);
    // The thread says it sleeps once it finds the ring empty (a state, waited on; not a time).
    const deadline = performance.now() + 60_000;
    while (Atomics.load(ring.control, SLEEPING) !== 1 && performance.now() < deadline)
      Atomics.wait(ring.control, SLEEPING, 0, 10);
    expect(Atomics.load(ring.control, SLEEPING)).toBe(1);
    thread.add(record('/api/trees'), performance.now());
    // Waits for the line only: wakes nothing (a thread left asleep would leave it unwritten).
    expect(thread.waitForLines()).toBe(0);
    expect(pathsIn(text())).toEqual(['/api/trees']);
  });

  test('group after group reaches the file in order, the thread asleep between them or not', () => {
    const { thread, text } = threadOnFile();
    const paths = Array.from({ length: 3000 }, (_, index) => `/api/trees/${index}`);
    for (const [index, path] of paths.entries()) {
      thread.add(record(path), performance.now());
      if (index % 500 === 499) expect(thread.waitForLines()).toBe(0);
    }
    thread.flushSync();
    expect(pathsIn(text())).toEqual(paths);
  });

  test("a line's time is when its request was answered, not when the thread read it", () => {
    const { thread, text } = threadOnFile();
    const before = Date.now();
    // Answered a minute ago by the serving thread's clock.
    thread.add(record('/api/trees'), performance.now() - 60_000);
    thread.flushSync();
    const after = Date.now();
    const [line = ''] = text().split('\n');
    const time = Date.parse((JSON.parse(line) as { time: string }).time);
    expect(time).toBeGreaterThanOrEqual(before - 60_000 - 1);
    expect(time).toBeLessThanOrEqual(after - 60_000 + 1);
  });

  /** A stand-in for the log's lines for stderr: `said` holds them, `next()` waits for the next one. */
  function stderrCatcher() {
    const said: string[] = [];
    let waiting: ((line: string) => void) | undefined;
    const say = vi.fn((line: string) => {
      said.push(line);
      waiting?.(line);
    });
    const next = () => new Promise<string>((resolve) => (waiting = resolve));
    return { said, say, next };
  }

  /**
   * A LogThread writing to a FIFO that nothing reads until the test does (`fd` reads it), with
   * its lines for stderr caught; `options` as LogThread takes them.
   */
  function threadOnStalledPipe(options: { exitWaitMs?: number; ring?: RingMemory } = {}) {
    const dir = temporaryFolder('access-log-');
    const fifo = join(dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    // Read and write: opening waits for no reader, and the thread's writes block once the pipe is full.
    const fd = openSync(fifo, 'r+');
    const stderr = stderrCatcher();
    const thread = new LogThread(fd, { ...options, say: stderr.say });
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => closeSync(fd),
      () => thread.terminate(),
    );
    return { thread, fd, stderr };
  }

  /**
   * A ring of `bytes` filled with records of `paths` (as many as fit) before the thread starts:
   * the thread's first read takes them all, and with nothing reading its pipe it never finishes
   * that read, so the ring stays full. The ring, and the paths in it.
   */
  function fullRing(bytes: number, paths: readonly string[]) {
    const ring = ringMemory(bytes);
    const writer = new RingWriter(ring);
    const waiting: string[] = [];
    for (const path of paths) {
      if (!writer.write(record(path), performance.now())) break;
      waiting.push(path);
    }
    expect(waiting.length).toBeLessThan(paths.length);
    return { ring, waiting };
  }

  /** A ring whose HEAD says a record waits where there is none: the thread's read throws there, and it ends. */
  function brokenRing() {
    const ring = ringMemory();
    new Float64Array(ring.records).fill(Number.NaN, 0, 16);
    Atomics.store(ring.control, HEAD, 16);
    return { ring };
  }

  const pathsNumbered = (count: number, prefix = '/api/trees/') =>
    Array.from({ length: count }, (_, index) => `${prefix}${index}`);
  const droppedLine = (dropped: number) =>
    `Access log: ${dropped} lines dropped: stdout took lines more slowly than requests came ` +
    '(at most 4 MiB of records wait to be written).\n';

  test('a stalled stdout: the ring fills, later records are dropped, and their count is said on stderr ' +
    `within ${DROPPED_NOTICE_MS} ms though no request follows and stdout is still stalled`, async () => {
    // Far more lines than a pipe holds (64 KiB), so the thread's first read blocks.
    const { ring, waiting } = fullRing(512 * 1024, pathsNumbered(10_000));
    const { thread, fd, stderr } = threadOnStalledPipe({ ring });
    const notice = stderr.next();
    const dropped = pathsNumbered(1000, '/api/cutters/');
    for (const path of dropped) thread.add(record(path), performance.now());
    // Nothing more is added, and nothing reads stdout: the timer alone says it.
    expect(await notice).toBe(droppedLine(dropped.length));

    const written = await readLines(fd, waiting.length);
    expect(written.map((line) => (JSON.parse(line) as AccessRecord).path)).toEqual(waiting);
    expect(thread.waitForLines()).toBe(0);
    thread.add(record('/api/gifts'), performance.now());
    const [line] = await readLines(fd, 1);
    expect((JSON.parse(line ?? '') as AccessRecord).path).toBe('/api/gifts');
    expect(stderr.said).toEqual([droppedLine(dropped.length)]);
  }, 120_000);

  test('records dropped after the count was said are said again, in a line of their own', async () => {
    const { ring, waiting } = fullRing(512 * 1024, pathsNumbered(10_000));
    const { thread, fd, stderr } = threadOnStalledPipe({ ring });
    // Read once the test is done, pass or fail (cleanups run last first): a thread blocked on a
    // full pipe cannot be stopped.
    cleanups.push(() => readLines(fd, waiting.length));
    const first = stderr.next();
    for (const path of pathsNumbered(300, '/api/cutters/')) thread.add(record(path), performance.now());
    expect(await first).toBe(droppedLine(300));
    const second = stderr.next();
    for (const path of pathsNumbered(200, '/api/gifts/')) thread.add(record(path), performance.now());
    expect(await second).toBe(droppedLine(200));
    expect(thread.droppedTotal).toBe(500);
  }, 120_000);

  test('a stalled stdout: what waits is bounded in bytes, so long targets wait in fewer records', () => {
    const long = 'a'.repeat(15_000);
    const short = fullRing(512 * 1024, pathsNumbered(10_000)).waiting.length;
    const cut = fullRing(
      512 * 1024,
      pathsNumbered(10_000).map((path) => `${path}?search=${long}`),
    ).waiting.length;
    // A cut target keeps 2,049 characters: about 2 KiB a record, where a short one takes about 100 bytes.
    expect(cut).toBeLessThan((512 * 1024) / 2048 + 1);
    expect(short).toBeGreaterThan(15 * cut);
  });

  test('at exit, records dropped and not said since are counted on stderr', async () => {
    const { ring, waiting } = fullRing(512 * 1024, pathsNumbered(10_000));
    const { thread, fd, stderr } = threadOnStalledPipe({ ring });
    for (const path of pathsNumbered(2048, '/api/cutters/')) thread.add(record(path), performance.now());
    await readLines(fd, waiting.length);
    thread.flushSync();
    expect(stderr.said).toEqual([droppedLine(2048)]);
  }, 120_000);

  test('at exit, lines stdout did not take in the wait are counted on stderr', () => {
    const { thread, fd, stderr } = threadOnStalledPipe({ exitWaitMs: 100 });
    // Lines of about 1 KiB: a pipe takes at most 64 of them before the thread waits on it.
    const paths = pathsNumbered(1024).map((path) => `${path}?search=${'a'.repeat(1000)}`);
    for (const path of paths) thread.add(record(path), performance.now());
    // Read once the test is done, pass or fail (cleanups run last first), so the thread can be stopped.
    cleanups.push(() => readLines(fd, 1024));
    // Nothing reads: the wait runs out, however fast the thread.
    thread.flushSync();
    expect(stderr.said).toHaveLength(1);
    const said = String(stderr.said[0]);
    const unwritten = Number(/^Access log: up to (\d+) lines not written: /.exec(said)?.[1]);
    expect(said).toMatch(
      /lines not written: stdout did not take them in the 0\.1 s the server waited before exiting\.\n$/,
    );
    expect(unwritten).toBeGreaterThan(1024 - 64);
    expect(unwritten).toBeLessThanOrEqual(1024);
  }, 120_000);

  test('the records waiting are counted right when the running counts pass 2^31 and wrap', () => {
    const written = new Int32Array(1);
    written[0] = 2 ** 31 - 10;
    const added = (2 ** 31 - 10 + 30) | 0;
    expect(added).toBeLessThan(0);
    expect(stillWaiting(added, Atomics.load(written, 0))).toBe(30);
    Atomics.add(written, 0, 25);
    expect(stillWaiting(added, Atomics.load(written, 0))).toBe(5);
  });

  test('a failed thread ends the log with one line on stderr; later records are not waited for', async () => {
    const { ring } = brokenRing();
    const stderr = stderrCatcher();
    const stopped = () => stderr.said.filter((line) => line.startsWith('Access log stopped'));
    const firstStopLine = stderr.next();
    const { thread, text } = threadOnFile(ring, stderr.say);
    expect(await firstStopLine).toMatch(/^Access log stopped: its thread failed \(.+\)\.\n$/);

    thread.add(record('/api/cutters'), performance.now());
    const flushStarted = performance.now();
    thread.flushSync();
    // A live thread that never answers is waited for 10 s; a failed one not at all.
    expect(performance.now() - flushStarted).toBeLessThan(5_000);
    expect(text()).toBe('');
    expect(stopped()).toHaveLength(1);
    // Room for a thread that starts slowly on a loaded machine.
  }, 120_000);

  test('once its thread failed, every record is dropped, counted and said as a full ring says it', async () => {
    const { ring } = brokenRing();
    const stderr = stderrCatcher();
    const stopLine = stderr.next();
    const { thread } = threadOnFile(ring, stderr.say);
    await stopLine;
    expect(thread.droppedTotal).toBe(0);
    const notice = stderr.next();
    for (const path of pathsNumbered(25)) thread.add(record(path), performance.now());
    expect(thread.droppedTotal).toBe(25);
    expect(await notice).toBe('Access log: 25 lines dropped: the log stopped when its thread failed.\n');
    const second = stderr.next();
    for (const path of pathsNumbered(5)) thread.add(record(path), performance.now());
    expect(await second).toBe('Access log: 5 lines dropped: the log stopped when its thread failed.\n');
    expect(thread.droppedTotal).toBe(30);
  }, 120_000);
});
