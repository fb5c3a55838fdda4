// The supervisor's restart policy, apart from any process: a serving process that dies is
// restarted, unless more have died within the window than a healthy build and host explain
// (then the supervisor stops, rather than restarting a crashing process forever).

export interface RestartPolicy {
  /** More deaths than this within the window: something is wrong with the build or the host. */
  maxRestarts: number;
  windowMs: number;
}

export const RESTART_POLICY: RestartPolicy = { maxRestarts: 5, windowMs: 10_000 };

export interface AfterDeath {
  action: 'restart' | 'stop';
  /** The deaths still inside the window, this one included: what to pass next time. */
  recentDeaths: number[];
}

/** What to do when a serving process dies at `now`, given the times (ms) of earlier deaths. */
export function afterDeath(earlierDeaths: readonly number[], now: number, policy = RESTART_POLICY): AfterDeath {
  const recentDeaths = [...earlierDeaths.filter((time) => time >= now - policy.windowMs), now];
  return { action: recentDeaths.length > policy.maxRestarts ? 'stop' : 'restart', recentDeaths };
}
