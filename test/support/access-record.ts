// An access log record for tests of the log (test/server/access-log*.test.ts), and the records
// of a ring read back as the log's thread reads them.
import type { AccessRecord, RingReader } from '../../src/server/access-log-ring.ts';

/** A GET of `path` answered 200 for the token named "reader", with `overrides`. */
export const accessRecord = (path: string, overrides: Partial<AccessRecord> = {}): AccessRecord => ({
  method: 'GET',
  path,
  status: 200,
  bytes: 612,
  durationMs: 0.25,
  token: 'reader',
  client: '127.0.0.1',
  ...overrides,
});

/** The records waiting in a ring, read as the log's thread reads them, each with its answeredAt; their room freed. */
export function readAll(reader: RingReader): { answeredAt: number; record: AccessRecord }[] {
  const records: { answeredAt: number; record: AccessRecord }[] = [];
  reader.read((record, answeredAt) => records.push({ answeredAt, record: { ...record } }));
  reader.release();
  return records;
}
