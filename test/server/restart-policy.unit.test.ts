// The supervisor's restart policy (src/server/restart-policy.ts), as a pure function of the
// times of deaths.
import { describe, expect, test } from 'vitest';
import { afterDeath, RESTART_POLICY } from '../../src/server/restart-policy.ts';

const policy = { maxRestarts: 3, windowMs: 1_000 };

/** Feeds deaths at these times through the policy; the action after each. */
function actionsFor(times: number[]): string[] {
  let deaths: number[] = [];
  return times.map((time) => {
    const next = afterDeath(deaths, time, policy);
    deaths = next.recentDeaths;
    return next.action;
  });
}

describe('the restart policy', () => {
  test('a process that dies is restarted', () => {
    expect(afterDeath([], 5_000, policy)).toEqual({ action: 'restart', recentDeaths: [5_000] });
  });

  test('up to maxRestarts deaths within the window are all restarted; one more stops the supervisor', () => {
    expect(actionsFor([0, 100, 200, 300])).toEqual(['restart', 'restart', 'restart', 'stop']);
  });

  test('deaths older than the window are forgotten, so occasional deaths are restarted forever', () => {
    expect(actionsFor([0, 600, 1_200, 1_800, 2_400, 3_000, 3_600])).toEqual(Array(7).fill('restart'));
    expect(afterDeath([0, 100, 2_000], 2_500, policy).recentDeaths).toEqual([2_000, 2_500]);
  });

  test('a death exactly one window after an earlier one still counts that one', () => {
    expect(afterDeath([1_000], 2_000, policy).recentDeaths).toEqual([1_000, 2_000]);
  });

  test('the default: more than 5 deaths within 10 s stop the supervisor', () => {
    expect(RESTART_POLICY).toEqual({ maxRestarts: 5, windowMs: 10_000 });
    const five = [1, 2, 3, 4, 5].map((second) => second * 1_000);
    expect(afterDeath(five, 9_000).action).toBe('stop');
    expect(afterDeath(five.slice(1), 9_000).action).toBe('restart');
  });
});
