// An access log record for tests of the log (test/server/access-log*.test.ts).
import type { AccessRecord } from '../../src/server/access-log-ring.ts';

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
