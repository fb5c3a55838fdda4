import { describe, expect, test } from 'vitest';
import {
  exact,
  formatCompact,
  formatDuration,
  formatExact,
  formatMoney,
  formatRange,
  shown,
} from '../../src/contract/format.ts';

describe('durations are shown as the game shows them', () => {
  test('61 seconds is "1m 1s"', () => expect(formatDuration(61)).toBe('1m 1s'));
  test('under a minute is seconds only', () => expect(formatDuration(45)).toBe('45s'));
  test('units that are zero are left out', () => {
    expect(formatDuration(60)).toBe('1m');
    expect(formatDuration(3_601)).toBe('1h 1s');
  });
  test('hours and days are used past an hour', () => expect(formatDuration(90_061)).toBe('1d 1h 1m 1s'));
  test('fractions of a second are rounded', () => expect(formatDuration(5.8)).toBe('6s'));
  test('zero is "0s"', () => expect(formatDuration(0)).toBe('0s'));
});

describe('money is shown as the game shows it', () => {
  test('11500 is "$11.5K"', () => expect(formatMoney(11_500)).toBe('$11.5K'));
  test('1064143 is "$1.064M"', () => expect(formatMoney(1_064_143)).toBe('$1.064M'));
  test('the largest upgrade cost is "$23.62B"', () => expect(formatMoney(23_619_637_994)).toBe('$23.62B'));
  test('under a thousand is whole dollars', () => {
    expect(formatMoney(999)).toBe('$999');
    expect(formatMoney(0)).toBe('$0');
  });
  test('a value that rounds up to the next thousand takes the next suffix', () =>
    expect(formatMoney(999_999.6)).toBe('$1M'));
  test('cents below a thousand show two decimals', () => {
    expect(formatMoney(12.345)).toBe('$12.35');
    expect(formatMoney(70.6)).toBe('$70.60');
  });
});

describe('counts are compact with the same suffixes', () => {
  test('102942 is "102.942K"', () => expect(formatCompact(102_942)).toBe('102.942K'));
  test('exact thousands drop their decimals', () => expect(formatCompact(2_000)).toBe('2K'));
});

describe('exact values keep every digit', () => {
  test('digits are grouped by thousands', () => expect(formatExact(23_619_637_994)).toBe('23,619,637,994'));
  test('money, seconds and percent carry their unit', () => {
    expect(exact('money', 1_064_143)).toBe('$1,064,143');
    expect(exact('seconds', 61)).toBe('61 s');
    expect(exact('percent', 104)).toBe('104%');
  });
  test('derived fractions keep two decimals', () => expect(exact('decimal', 0.43751)).toBe('0.44'));
  test('money from a thousand dollars is whole dollars: no "$2,471,839,755.7"', () => {
    expect(exact('money', 2_471_839_755.7)).toBe('$2,471,839,756');
    expect(exact('money', 999.996)).toBe('$1,000');
    expect(formatMoney(999.996)).toBe('$1K');
  });
  test('money below a thousand dollars shows its cents as two digits', () => {
    expect(exact('money', 2.01)).toBe('$2.01');
    expect(exact('money', 70.6)).toBe('$70.60');
    expect(exact('money', -0.001)).toBe('$0');
  });
});

describe('every unit has a short form', () => {
  test.each([
    ['money', 11_500, '$11.5K'],
    ['seconds', 61, '1m 1s'],
    ['count', 3_284, '3.284K'],
    ['percent', 104, '104%'],
    ['decimal', 0.096, '0.1'],
    ['times', 0.877, '×0.88'],
  ] as const)('%s %d is %s', (unit, value, expected) => expect(shown(unit, value)).toBe(expected));
});

test('a range joins its two ends with a dash', () => {
  expect(formatRange(shown, 'money', [700, 1_200])).toBe('$700–$1.2K');
  expect(formatRange(exact, 'money', [700, 1_200])).toBe('$700–$1,200');
});
