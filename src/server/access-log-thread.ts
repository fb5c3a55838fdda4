// The access log's thread: makes the lines of each batch the serving thread hands over, writes
// them to the log's file descriptor, and counts the batch's records as written in the shared
// counter the serving thread reads (access-log.ts: how many wait, and at exit, whether all are written).
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { type RecordBatch, recordsIn, recordsOf } from './access-log-batch.ts';
import { fdSink, LineMaker } from './access-log-lines.ts';

export interface LogThreadData {
  /** Where the lines go: 1 (stdout) when serving. */
  fd: number;
  /** [0]: how many records are written, [1]: their bytes; counted up after each batch (wrapping at 2^31). */
  written: Int32Array;
}

const { fd, written } = workerData as LogThreadData;
// stderr directly: a worker's process.stderr goes through the serving thread's event loop,
// which is not turning when this happens during its exit.
const where = fd === 1 ? 'stdout' : `file descriptor ${fd}`;
const lines = new LineMaker(
  fdSink(fd, (reason) => writeSync(2, `Access log stopped: writing to ${where} failed (${reason}).\n`)),
);

parentPort?.on('message', (batch: RecordBatch) => {
  try {
    lines.write(recordsIn(batch));
  } finally {
    // Counted even if it failed (the thread then ends): the serving thread waits for none in vain.
    Atomics.add(written, 1, batch.bytes);
    Atomics.add(written, 0, recordsOf(batch));
    Atomics.notify(written, 0);
  }
});
