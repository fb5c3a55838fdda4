// The metrics' answer kinds are made from the table of mounts (src/apps/mounts.ts): each app is a
// kind, and the statuses its mount names are series from the first scrape, at 0 (issue 63).
import { expect, test } from 'vitest';
import { MOUNTS } from '../../src/apps/mounts.ts';
import { ANSWER_KINDS, processMetrics, RequestTally } from '../../src/server/metrics.ts';

const counts = { logLinesDropped: 0, stderrLinesDropped: 0, dataVersion: 'v' };

test("every app of the table is an answer kind, its mount's statuses there from the start at 0", () => {
  const requests = processMetrics(new RequestTally(), counts).find(({ name }) => name === 'treefarm_requests_total');
  const seeded = (kind: string) =>
    (requests?.values ?? []).filter(({ labels }) => labels['kind'] === kind).map(({ labels }) => labels['status']);
  for (const { name, statuses } of MOUNTS) {
    expect(ANSWER_KINDS).toContain(name);
    expect(seeded(name), name).toEqual([...statuses].sort((one, other) => one - other));
  }
});
