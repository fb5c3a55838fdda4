// The local server's request counts (src/server/rate-counter.ts): fixed windows on the clock.
// Which key an address counts under (its /64) is the core's: test/edge/rate-limit.test.ts.
import { describe, expect, test } from 'vitest';
import { MAX_ADDRESSES_PER_WINDOW, WindowCounter, localRateCounter } from '../../src/server/rate-counter.ts';

const LIMIT = { requests: 3, seconds: 10 } as const;
/** A moment 4.5 s into a 10-second window. */
const T = 1_800_000_004_500;

describe('a fixed window', () => {
  test('the first n requests of a key in a window are allowed, each saying what is left; the (n+1)th is not', () => {
    const counter = new WindowCounter(LIMIT);
    expect([1, 2, 3, 4].map(() => counter.hit('a', T))).toEqual([
      { allowed: true, remaining: 2, resetSeconds: 6 },
      { allowed: true, remaining: 1, resetSeconds: 6 },
      { allowed: true, remaining: 0, resetSeconds: 6 },
      { allowed: false, remaining: 0, resetSeconds: 6 },
    ]);
  });

  test('another key has its own count', () => {
    const counter = new WindowCounter(LIMIT);
    for (let index = 0; index < 4; index++) counter.hit('a', T);
    expect(counter.hit('b', T)).toEqual({ allowed: true, remaining: 2, resetSeconds: 6 });
  });

  test('windows start on the clock: the next window restores the count', () => {
    const counter = new WindowCounter(LIMIT);
    for (let index = 0; index < 4; index++) counter.hit('a', T);
    expect(counter.hit('a', T + 5_499)).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(counter.hit('a', T + 5_500)).toEqual({ allowed: true, remaining: 2, resetSeconds: 10 });
  });

  test('the seconds to the reset are whole and at least 1', () => {
    const counter = new WindowCounter(LIMIT);
    expect(counter.hit('a', 1_800_000_009_999).resetSeconds).toBe(1);
    expect(counter.hit('a', 1_800_000_000_001).resetSeconds).toBe(10);
  });

  test('past maxKeys in one window a new key is let through uncounted, a known one still counted', () => {
    const counter = new WindowCounter(LIMIT, 2);
    counter.hit('a', T);
    counter.hit('b', T);
    for (let index = 0; index < 4; index++)
      expect(counter.hit('c', T)).toEqual({ allowed: true, remaining: 3, resetSeconds: 6 });
    expect(counter.hit('a', T)).toMatchObject({ allowed: true, remaining: 1 });
    expect(counter.hit('a', T)).toMatchObject({ allowed: true, remaining: 0 });
    expect(counter.hit('a', T)).toMatchObject({ allowed: false });
  });
});

describe('the local counts', () => {
  test('a token and an address with the same key are counted apart', () => {
    const count = localRateCounter({ requests: 1, seconds: 60 });
    expect(count('token', 'k')).toMatchObject({ allowed: true });
    expect(count('address', 'k')).toMatchObject({ allowed: true });
    expect(count('token', 'k')).toMatchObject({ allowed: false });
  });

  test('past 100,000 addresses in a window a new address is not refused; a token is still counted', () => {
    const count = localRateCounter({ requests: 1, seconds: 60 });
    for (let index = 0; index < MAX_ADDRESSES_PER_WINDOW; index++) count('address', `10.0.${index}`);
    expect(count('address', '192.0.2.1')).toMatchObject({ allowed: true });
    expect(count('address', '192.0.2.1')).toMatchObject({ allowed: true });
    expect(count('token', 'a token')).toMatchObject({ allowed: true });
    expect(count('token', 'a token')).toMatchObject({ allowed: false });
  });
});
