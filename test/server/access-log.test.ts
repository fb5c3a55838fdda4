// The access log's own pieces (src/server/access-log.ts); the lines over HTTP, from each
// process, are checked in test/reliability/rate-limits.test.ts.
import { describe, expect, test } from 'vitest';
import { isoTimestamp } from '../../src/server/access-log.ts';

describe('access log', () => {
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
