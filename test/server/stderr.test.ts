// Lines for stderr (src/server/stderr.ts): written off the serving thread, bounded as the access log
// is: past MAX_WAITING_BYTES waiting they are dropped and counted, and the count is said once stderr
// takes lines again. Over a real stalled pipe, under a flood of failures:
// test/reliability/stalled-stderr.test.ts.
import type { write } from 'node:fs';
import { expect, test } from 'vitest';
import { StderrLines } from '../../src/server/stderr.ts';

type Callback = (error: NodeJS.ErrnoException | null, written: number) => void;

/** A stand-in for fs.write on a stderr that takes nothing until `release()`: what was written, and the calls held. */
function stalledStderr() {
  const written: string[] = [];
  const held: (() => void)[] = [];
  const writeFd = ((_fd: number, bytes: Buffer, _offset: number, length: number, _position: null, done: Callback) => {
    held.push(() => {
      written.push(bytes.toString('utf8', 0, length));
      done(null, length);
    });
  }) as unknown as typeof write;
  /** Lets every write held so far, and those they start, through. */
  const release = () => {
    while (held.length > 0) held.shift()?.();
  };
  return { written, held, writeFd, release };
}

const line = (index: number) => `GET /api/trees failed: Error: number ${String(index).padStart(5, '0')}`;
/** A line's bytes with its newline. */
const LINE_BYTES = line(0).length + 1;

test('a stalled stderr holds at most the bound: a flood of lines past it is dropped and counted', () => {
  const stderr = stalledStderr();
  const lines = new StderrLines(2, 4096, stderr.writeFd);
  const taken = Array.from({ length: 10_000 }, (_, index) => lines.say(line(index))).filter(Boolean).length;
  expect(taken).toBe(Math.floor(4096 / LINE_BYTES));
  expect(lines.droppedTotal).toBe(10_000 - taken);
  // One write under way (the first line), the rest waiting in memory: nothing more.
  expect(stderr.held).toHaveLength(1);
});

test('once stderr takes lines again, what waited is written in order, then one line says how many were dropped', () => {
  const stderr = stalledStderr();
  const lines = new StderrLines(2, 4096, stderr.writeFd);
  for (let index = 0; index < 1000; index++) lines.say(line(index));
  stderr.release();
  const out = stderr.written.join('').split('\n').filter(Boolean);
  const taken = Math.floor(4096 / LINE_BYTES);
  expect(out.slice(0, -1)).toEqual(Array.from({ length: taken }, (_, index) => line(index)));
  expect(out.at(-1)).toBe(
    `Server: ${1000 - taken} lines for stderr dropped: stderr took lines more slowly than they came ` +
      '(at most 4 KiB wait to be written).',
  );
  // Room again: the next line is taken.
  expect(lines.say(line(1000))).toBe(true);
  stderr.release();
  expect(stderr.written.at(-1)).toBe(`${line(1000)}\n`);
});

test('a stderr that is gone (EPIPE) drops every later line, counted, and writes nothing more', () => {
  let writes = 0;
  const writeFd = ((_fd: number, _bytes: Buffer, _offset: number, _length: number, _position: null, done: Callback) => {
    writes++;
    done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 0);
  }) as unknown as typeof write;
  const lines = new StderrLines(2, 4096, writeFd);
  expect(lines.say('first')).toBe(true);
  expect(lines.say('second')).toBe(false);
  expect(writes).toBe(1);
  expect(lines.droppedTotal).toBe(1);
});

test('an exiting process waits for the lines taken, up to a time', async () => {
  const stderr = stalledStderr();
  const lines = new StderrLines(2, 4096, stderr.writeFd);
  lines.say('last words');
  const settled = lines.settled(60_000);
  stderr.release();
  await settled;
  expect(stderr.written).toEqual(['last words\n']);
});
