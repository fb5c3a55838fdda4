// The rate limit's settings and texts, as the contract states them (docs/api-contract.md, "Rate limits").
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  rateLimitPolicy,
  rateLimitState,
  tooManyRequestsBody,
  wholeNumberText,
} from '../../src/contract/rate-limit.ts';
import { parseRateLimit } from '../../src/schema/environment.ts';

describe('API_RATE_LIMIT', () => {
  test('<requests>/<seconds>s states the requests per window', () => {
    expect(parseRateLimit('100/60s')).toEqual({ requests: 100, seconds: 60 });
    expect(parseRateLimit(' 5/10s ')).toEqual({ requests: 5, seconds: 10 });
  });

  test('unset or empty is no limit', () => {
    expect(parseRateLimit(undefined)).toBeUndefined();
    expect(parseRateLimit('')).toBeUndefined();
  });

  test('a window other than 10 or 60 seconds, or any other form, is refused naming the variable and the value', () => {
    const refused = ['100/30s', '100/60', '100 per 60s', '0/60s', '-1/60s', '1.5/60s', '100/60S', 'x'];
    for (const value of [...refused, '100/60sx', '100/60s/10s', '1000000000/60s'])
      expect(() => parseRateLimit(value)).toThrow(
        'API_RATE_LIMIT must be <requests>/<seconds>s, requests a whole number from 1 to 999999999 ' +
          `and seconds 10 or 60 (such as 100/60s), got "${value}"`,
      );
  });
});

describe('the fields and the body', () => {
  const limit = { requests: 100, seconds: 60 } as const;

  test('RateLimit-Policy names the quota and the window', () => {
    expect(rateLimitPolicy(limit)).toBe('"token";q=100;w=60');
  });

  test('RateLimit names what is left and the seconds until the reset', () => {
    expect(rateLimitState(0, 17)).toBe('"token";r=0;t=17');
    expect(rateLimitState(999_999_998, 60)).toBe('"token";r=999999998;t=60');
  });

  test('what is left is written in decimal digits, as any whole number up to the largest limit', () => {
    for (const whole of [0, 7, 999, 1000, 1001, 10_010, 1_000_000, 20_000_300, 999_999_999])
      expect(wholeNumberText(whole)).toBe(String(whole));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999 }), (whole) => wholeNumberText(whole) === String(whole)),
    );
  });

  test('the 429 body states the limit and the wait', () => {
    expect(JSON.parse(tooManyRequestsBody(limit, 17, 'token'))).toEqual({
      error: true,
      message: 'Too many requests with this API token: the limit is 100 per 60 seconds. Try again in 17 seconds.',
    });
  });

  test('the 429 body to a request counted by its address says "from this address"', () => {
    expect(JSON.parse(tooManyRequestsBody(limit, 17, 'address'))).toEqual({
      error: true,
      message: 'Too many requests from this address: the limit is 100 per 60 seconds. Try again in 17 seconds.',
    });
  });
});
