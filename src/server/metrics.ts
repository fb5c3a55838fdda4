// The metrics of one serving process (METRICS, docs/running.md#metrics). A request adds a few
// stores to typed arrays on the serving thread (its kind and status counted, its latency in a
// bucket): prom-client's own objects cost about 300 ns a request to update (a label hash and
// checks each, `npm run bench:instructions`), so they are made from these tallies only when the
// supervisor asks (metrics-endpoint.ts), in the JSON form prom-client's cluster aggregation takes.

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

/** A metric as prom-client's `getMetricsAsJSON()` gives it, which `AggregatorRegistry.aggregate` sums. */
export interface MetricJson {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
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

const metric = (name: string, help: string, type: MetricJson['type'], values: MetricJson['values']): MetricJson => ({
  name,
  help,
  type,
  aggregator: 'sum',
  values,
});

/** Requests by kind and status, and the 429s among them (the rate limit's refusals). */
function requestCounts(tally: RequestTally): MetricJson[] {
  const values: MetricJson['values'] = [];
  let refusals = 0;
  for (const [index, kind] of ANSWER_KINDS.entries())
    for (let status = 0; status < STATUSES; status++) {
      const value = tally.byStatus[index * STATUSES + status] ?? 0;
      if (value === 0) continue;
      values.push({ labels: { kind, status }, value });
      if (status === 429) refusals += value;
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
    if (count === 0) continue;
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
    metric('treefarm_access_log_lines_dropped_total', 'Access log lines dropped: stdout was too slow.', 'counter', [
      { labels: {}, value: counts.logLinesDropped },
    ]),
    metric('treefarm_stderr_lines_dropped_total', 'Lines for stderr dropped: stderr was too slow.', 'counter', [
      { labels: {}, value: counts.stderrLinesDropped },
    ]),
    metric('treefarm_data_version_info', 'Serving processes by the data version they serve.', 'gauge', [
      { labels: { version: counts.dataVersion }, value: 1 },
    ]),
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

/** In a serving process: answers the supervisor's requests for its metrics over the cluster's IPC channel. */
export function answerMetricsRequests(tally: RequestTally, counts: () => ProcessCounts, channel = process): void {
  channel.on('message', (message: unknown) => {
    if (!isMetricsRequest(message) || !channel.connected) return;
    const answer: MetricsAnswer = { type: 'metrics', id: message.id, metrics: processMetrics(tally, counts()) };
    channel.send?.(answer);
  });
}
