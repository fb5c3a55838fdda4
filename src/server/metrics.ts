// The metrics of one serving process (METRICS, docs/running.md#metrics). A request adds a few
// stores to typed arrays on the serving thread (its kind and status counted, its latency in a
// bucket): prom-client's own objects cost about 300 ns a request to update (a label hash and
// checks each, `npm run bench:instructions`), so they are made from these tallies only when the
// supervisor asks (metrics-endpoint.ts), in the JSON form prom-client's cluster aggregation takes.
// Each process adds prom-client's default process metrics, labelled by process (ownProcessMetrics).

import { type AppName, MOUNTS } from '../apps/mounts.ts';

/**
 * The kinds of answer a request is counted by: the API's, the wiki's, each app's (by its name,
 * src/apps/mounts.ts); `refused`: turned away before routing (400, 413).
 */
export const ANSWER_KINDS = ['api', 'wiki', ...MOUNTS.map(({ name }) => name), 'refused', 'failed'] as const;
export type AnswerKind = 'api' | 'wiki' | AppName | 'refused' | 'failed';
/**
 * An answer kind's place in ANSWER_KINDS, as the serving path passes it; an app outside the table
 * (a test's own) has none, and is not counted.
 */
export const KIND = Object.fromEntries(ANSWER_KINDS.map((kind, index) => [kind, index])) as Record<AnswerKind, number> &
  Readonly<Record<string, number | undefined>>;

/** The latency histogram's upper bounds, in seconds: a remembered answer takes tens of microseconds. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2.5, 10];
/** Statuses are counted 100 to 599; anything else (never sent by node:http) as 0. */
const STATUSES = 600;
/**
 * The statuses each kind of answer sends (docs/api-contract.md; an app's, its mount's `statuses`):
 * their series are there from the first scrape, at 0, so increase() counts a first burst whole.
 * Another status appears at its first.
 */
const STATUSES_OF = new Map<string, readonly number[]>([
  ...Object.entries({
    api: [200, 204, 304, 401, 404, 405, 429],
    wiki: [200, 206, 304, 307, 404, 405, 412, 416, 500],
    refused: [400, 413],
    failed: [500],
  } satisfies Record<Exclude<AnswerKind, AppName>, readonly number[]>),
  ...MOUNTS.map(({ name, statuses }): [string, readonly number[]] => [name, statuses]),
]);
const SLOTS = LATENCY_BUCKETS.length + 1;

/** What each request adds, by kind: counts by status, latencies by bucket (the last: past every bound), their sum. */
export class RequestTally {
  readonly byStatus = new Float64Array(ANSWER_KINDS.length * STATUSES);
  readonly byBucket = new Float64Array(ANSWER_KINDS.length * SLOTS);
  readonly seconds = new Float64Array(ANSWER_KINDS.length);

  /** A request of `kind` (a KIND value) answered `status` after `ms` milliseconds. */
  answered(kind: number, status: number, ms: number): void {
    const counted = kind * STATUSES + (status < STATUSES ? status : 0);
    this.byStatus[counted] = (this.byStatus[counted] ?? 0) + 1;
    const seconds = ms / 1000;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] ?? 0)) bucket++;
    const slot = kind * SLOTS + bucket;
    this.byBucket[slot] = (this.byBucket[slot] ?? 0) + 1;
    this.seconds[kind] = (this.seconds[kind] ?? 0) + seconds;
  }
}

/**
 * A metric as prom-client's `getMetricsAsJSON()` gives it, which `AggregatorRegistry.aggregate`
 * joins across processes by its aggregator: counts summed; an info metric's 1 kept as 1 (max); a
 * series one process alone has (labelled by it), as it is (first).
 */
export interface MetricJson {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  aggregator: 'sum' | 'max' | 'first';
  values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
}

/** What a serving process tells beside its tally. */
export interface ProcessCounts {
  /** The access log's lines dropped since the process started. */
  logLinesDropped: number;
  /** Lines for stderr dropped since the process started (stderr.ts). */
  stderrLinesDropped: number;
  /** The version of the build it serves. */
  dataVersion: string;
}

const metric = (
  name: string,
  help: string,
  type: MetricJson['type'],
  values: MetricJson['values'],
  aggregator: MetricJson['aggregator'] = 'sum',
): MetricJson => ({ name, help, type, aggregator, values });

/** Requests by kind and status, and the 429s among them (the rate limit's refusals). */
function requestCounts(tally: RequestTally): MetricJson[] {
  const values: MetricJson['values'] = [];
  let refusals = 0;
  for (const [index, kind] of ANSWER_KINDS.entries()) {
    const seeded = STATUSES_OF.get(kind) ?? [];
    for (let status = 0; status < STATUSES; status++) {
      const value = tally.byStatus[index * STATUSES + status] ?? 0;
      if (value === 0 && !seeded.includes(status)) continue;
      values.push({ labels: { kind, status }, value });
      if (status === 429) refusals += value;
    }
  }
  return [
    metric('treefarm_requests_total', 'Requests answered, by kind of answer and status.', 'counter', values),
    metric('treefarm_rate_limit_refusals_total', 'Requests refused by the rate limit (429).', 'counter', [
      { labels: {}, value: refusals },
    ]),
  ];
}

/** The latency histogram by kind, in prom-client's form: cumulative buckets, then +Inf, sum and count. */
function latencies(tally: RequestTally): MetricJson {
  const name = 'treefarm_request_duration_seconds';
  const values: MetricJson['values'] = [];
  for (const [index, kind] of ANSWER_KINDS.entries()) {
    let count = 0;
    const buckets = LATENCY_BUCKETS.map((bound, bucket) => {
      count += tally.byBucket[index * SLOTS + bucket] ?? 0;
      return { labels: { le: bound, kind }, value: count, metricName: `${name}_bucket` };
    });
    count += tally.byBucket[index * SLOTS + LATENCY_BUCKETS.length] ?? 0;
    // Every kind's, at 0 before its first request: increase() counts its first ones.
    values.push(
      ...buckets,
      { labels: { le: '+Inf', kind }, value: count, metricName: `${name}_bucket` },
      { labels: { kind }, value: tally.seconds[index] ?? 0, metricName: `${name}_sum` },
      { labels: { kind }, value: count, metricName: `${name}_count` },
    );
  }
  return metric(name, 'Time from a request to its answer, by kind of answer.', 'histogram', values);
}

/** A serving process's metrics, ready for the supervisor to sum with its other processes'. */
export function processMetrics(tally: RequestTally, counts: ProcessCounts): MetricJson[] {
  return [
    ...requestCounts(tally),
    latencies(tally),
    metric(
      'treefarm_access_log_lines_dropped_total',
      'Access log lines dropped: stdout was too slow, or the log had stopped.',
      'counter',
      [{ labels: {}, value: counts.logLinesDropped }],
    ),
    metric('treefarm_stderr_lines_dropped_total', 'Lines for stderr dropped: stderr was too slow.', 'counter', [
      { labels: {}, value: counts.stderrLinesDropped },
    ]),
    // An info metric: 1 for the version served, whatever the processes serving it (two during a reload's swap).
    metric(
      'treefarm_data_version_info',
      'The data version served (1; two versions while processes swap builds).',
      'gauge',
      [{ labels: { version: counts.dataVersion }, value: 1 }],
      'max',
    ),
  ];
}

/** The supervisor's request for a serving process's metrics, and the answer. */
export interface MetricsRequest {
  type: 'metrics-request';
  id: number;
}
export interface MetricsAnswer {
  type: 'metrics';
  id: number;
  metrics: MetricJson[];
}

export const isMetricsRequest = (message: unknown): message is MetricsRequest =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'metrics-request';

/** Who a process is, in the labels of its process metrics. */
export type ProcessRole = 'supervisor' | 'serving';

/**
 * prom-client's default metrics of this process (resident memory, CPU, start time, event-loop
 * lag, heap, handles, GC), from now on, each series labelled with the process's role and pid:
 * kept apart, not summed, so one process's leak or blocked event loop shows as its own (sum() in a
 * query gives the server's). The function gives them as of each call.
 */
export function ownProcessMetrics(role: ProcessRole): () => Promise<MetricJson[]> {
  // Loaded here, not above: a serving process without a supervisor to ask it never loads prom-client.
  const registry = import('prom-client').then(({ collectDefaultMetrics, Registry }) => {
    const register = new Registry();
    collectDefaultMetrics({ register, labels: { role, pid: process.pid } });
    return register;
  });
  return async () =>
    (await (await registry).getMetricsAsJSON()).map(({ name, help, type, values }) => ({
      name,
      help,
      type: String(type) as MetricJson['type'],
      // Each label set is one process's alone (prom-client's own would omit the start time, average the lag).
      aggregator: 'first',
      values: (values as MetricJson['values']).filter(({ value }) => !noLagSample(name, value)),
    }));
}

/**
 * Whether `value` is an event-loop lag figure of no sample: each scrape resets the lag's histogram,
 * and one taken within its 10 ms of the last (scrapes at once) reads Node's empty histogram, 2^63
 * ns or NaN. Left out of that scrape rather than sent as a lag of 292 years.
 */
const noLagSample = (name: string, value: number): boolean =>
  name.startsWith('nodejs_eventloop_lag_') && !(value < 1e9);

/**
 * In a serving process: answers the supervisor's requests for its metrics over the cluster's IPC
 * channel. Only with one: a process alone (bench:instructions runs one) has no one to answer, and
 * runs no process metrics' monitor (a timer of the event-loop lag's, off the request path).
 */
export function answerMetricsRequests(tally: RequestTally, counts: () => ProcessCounts, channel = process): void {
  if (channel.send === undefined) return;
  const own = ownProcessMetrics('serving');
  channel.on('message', (message: unknown) => {
    if (!isMetricsRequest(message)) return;
    const metrics = processMetrics(tally, counts());
    const answer = (mine: MetricJson[]) => {
      const reply: MetricsAnswer = { type: 'metrics', id: message.id, metrics: [...metrics, ...mine] };
      if (channel.connected) channel.send?.(reply);
    };
    own().then(answer, () => answer([]));
  });
}
