// METRICS (src/server/metrics.ts, metrics-endpoint.ts): Prometheus text at /metrics on an address
// of its own, summed over every serving process by the supervisor; off, and unreachable, unless set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
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
  expect(series(text, 'treefarm_data_version_info', `version="${version}"`)).toBe(1);
}, 180_000);

test('100 scrapes at once with WORKERS=2: every one answered, nothing on stderr', async () => {
  const port = await freePort();
  running = await startServe({ tokens: [TOKEN], processes: 2, metrics: `127.0.0.1:${port}` });
  const said = `Metrics: http://127.0.0.1:${port}/metrics`;
  await until(() => running?.output().includes(said) ?? false);
  let stderr = '';
  running.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const scrapes = await Promise.all(
    Array.from({ length: 100 }, async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/metrics`);
      return { status: answer.status, processes: series(await answer.text(), 'treefarm_serving_processes') };
    }),
  );
  expect(scrapes).toEqual(Array.from({ length: 100 }, () => ({ status: 200, processes: 2 })));
  // The supervisor's stderr as it exits: a warning printed during the scrapes is in it by then.
  await running.stop('SIGTERM');
  expect(stderr).toBe('');
}, 120_000);

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

describe('with WORKERS=2, before any request', () => {
  let shared: RunningServeChild | undefined;
  let metricsUrl = '';
  beforeAll(async () => {
    const port = await freePort();
    shared = await startServe({ tokens: [TOKEN], processes: 2, metrics: `127.0.0.1:${port}` });
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    await until(() => shared?.output().includes(`Metrics: ${metricsUrl}`) ?? false);
  }, 120_000);
  afterAll(async () => {
    await shared?.stop('SIGKILL');
  });
  const scrape = async (url = metricsUrl) => (await fetch(url)).text();

  test('every answer kind and status series is there from the start, at 0', async () => {
    const text = await scrape();
    // The statuses docs/api-contract.md gives each kind of answer.
    const statuses = {
      api: [200, 204, 304, 401, 404, 405, 429],
      wiki: [200, 304, 307, 404, 405, 412, 416],
      mcp: [200, 401, 405, 413, 415, 429],
      discord: [200, 401, 405, 413],
      refused: [400, 413],
      failed: [500],
    };
    for (const [kind, each] of Object.entries(statuses)) {
      for (const status of each)
        expect(series(text, 'treefarm_requests_total', `kind="${kind}",status="${status}"`), `${kind} ${status}`).toBe(
          0,
        );
      expect(series(text, 'treefarm_request_duration_seconds_count', `kind="${kind}"`), kind).toBe(0);
      expect(series(text, 'treefarm_request_duration_seconds_bucket', `le="+Inf",kind="${kind}"`), kind).toBe(0);
    }
  });

  test('an info metric reads 1: the data version, however many processes serve it', async () => {
    const { version } = JSON.parse(readFileSync(join(projectDir, 'dist', MANIFEST_FILE), 'utf8')) as {
      version: string;
    };
    expect(series(await scrape(), 'treefarm_data_version_info', `version="${version}"`)).toBe(1);
  });

  test('each process has its process metrics, labelled by its role and pid: memory, CPU, start time, lag', async () => {
    const supervisor = shared?.child.pid ?? 0;
    const processes = [
      { role: 'supervisor', pid: supervisor },
      ...servingProcesses(supervisor).map((pid) => ({ role: 'serving', pid })),
    ];
    expect(processes).toHaveLength(3);
    // Twice: the event-loop lag's own gauge is set just after a scrape, for the next; the second
    // with others at once, whose lag histograms hold no sample since the one before.
    await scrape();
    const [text = '', ...others] = await Promise.all(Array.from({ length: 5 }, () => scrape()));
    const now = Date.now() / 1000;
    for (const { role, pid } of processes) {
      const labels = `role="${role}",pid="${pid}"`;
      expect(series(text, 'process_resident_memory_bytes', labels), labels).toBeGreaterThan(10 * 1024 * 1024);
      expect(series(text, 'process_cpu_seconds_total', labels), labels).toBeGreaterThan(0);
      const started = series(text, 'process_start_time_seconds', labels) ?? 0;
      expect(started, labels).toBeGreaterThan(now - 600);
      expect(started, labels).toBeLessThanOrEqual(now);
      expect(series(text, 'nodejs_eventloop_lag_seconds', labels), labels).toBeGreaterThanOrEqual(0);
      expect(series(text, 'nodejs_eventloop_lag_p99_seconds', labels), labels).toBeGreaterThanOrEqual(0);
    }
    // No scrape reports a lag it did not measure (an empty histogram reads 2^63 ns, or NaN).
    const lags = [text, ...others].flatMap((each) =>
      each.split('\n').filter((line) => line.startsWith('nodejs_eventloop_lag_')),
    );
    for (const line of lags) expect(Number(line.slice(line.lastIndexOf(' ') + 1)), line).toBeLessThan(60);
  });

  test('/metrics with a query string is /metrics: answered, its query ignored', async () => {
    const answer = await fetch(`${metricsUrl}?x=1`);
    expect(answer.status).toBe(200);
    expect(series(await answer.text(), 'treefarm_serving_processes')).toBe(2);
  });
});
