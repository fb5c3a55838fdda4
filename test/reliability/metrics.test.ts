// METRICS (src/server/metrics.ts, metrics-endpoint.ts): Prometheus text at /metrics on an address
// of its own, summed over every serving process by the supervisor; off, and unreachable, unless set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { MANIFEST_FILE } from '../../src/contract/paths.ts';
import { freePort } from '../support/runtimes.ts';
import { servingProcesses, startServe, until, type RunningServeChild } from '../support/serve-child.ts';

const TOKEN = 'metrics-test-token';
let running: RunningServeChild | undefined;

afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
});

/** The value of the series `name{labels}` (labels as Prometheus writes them), or undefined. */
function series(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(labels === '' ? `${name} ` : `${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const EVERY_SERIES =
  'with WORKERS=2, /metrics on its own port gives every series, summed over the processes and the restart';
test(EVERY_SERIES, async () => {
  const port = await freePort();
  running = await startServe({ tokens: [TOKEN], processes: 2, rateLimit: '5/60s', metrics: `127.0.0.1:${port}` });
  // The supervisor says where the metrics are once their listener is up, which may be after the API's line.
  const said = `Metrics: http://127.0.0.1:${port}/metrics`;
  await until(() => running?.output().includes(said) ?? false);
  const supervisor = running.child.pid ?? 0;
  await until(() => servingProcesses(supervisor).length === 2);
  // One process dies and another takes its place: a restart, two serving.
  const [victim] = servingProcesses(supervisor);
  process.kill(victim ?? 0, 'SIGKILL');
  await until(() => running?.output().includes('serving again') ?? false);

  const api = `${running.url}/api/trees?search=Oak%20Tree`;
  const statuses: number[] = [];
  for (let request = 0; request < 7; request++)
    statuses.push((await fetch(api, { headers: { Authorization: `Bearer ${TOKEN}` } })).status);
  expect(statuses.filter((status) => status === 429)).toHaveLength(2);
  expect((await fetch(`${running.url}/`)).status).toBe(200);
  const { version } = JSON.parse(readFileSync(join(projectDir, 'dist', MANIFEST_FILE), 'utf8')) as {
    version: string;
  };

  const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await scraped.text();
  expect(series(text, 'treefarm_requests_total', 'kind="api",status="200"')).toBe(5);
  expect(series(text, 'treefarm_requests_total', 'kind="api",status="429"')).toBe(2);
  expect(series(text, 'treefarm_requests_total', 'kind="wiki",status="200"')).toBe(1);
  expect(series(text, 'treefarm_rate_limit_refusals_total')).toBe(2);
  expect(series(text, 'treefarm_request_duration_seconds_bucket', 'le="+Inf",kind="api"')).toBe(7);
  expect(series(text, 'treefarm_request_duration_seconds_count', 'kind="api"')).toBe(7);
  expect(series(text, 'treefarm_request_duration_seconds_sum', 'kind="api"')).toBeGreaterThan(0);
  expect(series(text, 'treefarm_access_log_lines_dropped_total')).toBe(0);
  expect(series(text, 'treefarm_stderr_lines_dropped_total')).toBe(0);
  expect(series(text, 'treefarm_serving_processes')).toBe(2);
  expect(series(text, 'treefarm_serving_process_restarts_total')).toBe(1);
  expect(series(text, 'treefarm_data_version_info', `version="${version}"`)).toBe(2);
}, 180_000);

test('without METRICS nothing serves metrics: the API port has no /metrics', async () => {
  running = await startServe({ tokens: [TOKEN] });
  expect(running.output()).not.toContain('Metrics:');
  const answer = await fetch(`${running.url}/metrics`);
  expect(answer.status).toBe(404);
  expect(await answer.text()).not.toContain('treefarm_requests_total');
}, 120_000);

test("METRICS on the API's own port is refused at start, naming both", async () => {
  const port = await freePort();
  await expect(startServe({ tokens: [TOKEN], metrics: `127.0.0.1:${port}`, port })).rejects.toThrow(
    `METRICS: port ${port} is the API's own (PORT); metrics need a port of their own`,
  );
}, 120_000);
