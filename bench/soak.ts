// `npm run bench:soak`: the local server (serve.ts, its own process) under mixed keep-alive
// traffic at full speed from this process: lists, name and level searches, not found, bad and
// missing tokens, HEAD, conditional requests, br and gzip. Every status is checked, and 1 in
// 50 responses in full (headers and body bytes against dist/). Goals: zero 5xx, zero failed
// connections, zero wrong responses, RSS growth under 20 MB after the warm-up.
// Env: SOAK_SECONDS (60), SOAK_WARMUP_SECONDS (10), SOAK_CONNECTIONS (32), SOAK_RELOADS (0:
// that many SIGHUP reloads of dist/, spread over the time after the warm-up).
import '../src/cli/node-check.ts';
import { existsSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { JSON_CONTENT_TYPE } from '../src/contract/headers.ts';
import { TOKEN_INVALID_BODY, TOKEN_REQUIRED_BODY, UNKNOWN_ENDPOINT_BODY } from '../src/contract/messages.ts';
import { listRoute, MANIFEST_FILE, notFoundRoute } from '../src/contract/paths.ts';
import { etagFor, type Encoding } from '../src/edge/negotiation.ts';
import { kindIds } from '../src/schema/kinds.ts';
import { versionOf } from '../test/support/api-client.ts';
import { decodeBody, envelopePaths, readBuild, requestFor, type Build } from '../test/support/builds.ts';
import { residentBytes, servingProcesses, startServe } from '../test/support/serve-child.ts';
import { distDir } from '../test/support/runtimes.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

await commandLine({
  command: 'npm run bench:soak',
  summary:
    'The local server under mixed keep-alive traffic at full speed, every status checked and 1 in 50 answers ' +
    'in full: zero 5xx, no failed request, memory flat. Reads SOAK_SECONDS, SOAK_WARMUP_SECONDS, ' +
    'SOAK_CONNECTIONS and SOAK_RELOADS.',
  options: {},
  variables: {},
  examples: ['SOAK_SECONDS=600 npm run bench:soak'],
  version: () => projectVersion(),
});

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const WARMUP_SECONDS = Math.min(Number(process.env.SOAK_WARMUP_SECONDS ?? 10), SECONDS / 4);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 32);
const RELOADS = Number(process.env.SOAK_RELOADS ?? 0);
const CHECK_ONE_IN = 50;
const GOALS = { rssGrowthBytes: 20 * 1024 * 1024 };
const TOKEN = 'soak-token';
const MiB = 1024 * 1024;

interface Expected {
  status: number;
  /** The identity body: an API file's bytes or a fixed text; none for 304 and HEAD. */
  body?: Buffer;
  encoding: Encoding;
  /** The ETag a 200 (or 304) carries. */
  etag?: string;
  /** X-Data-Version: a release's answer carries that release's data version. */
  version: string;
}

interface Template {
  label: string;
  method: 'GET' | 'HEAD';
  target: string;
  headers: Record<string, string>;
  expected: Expected;
}

interface Outcome {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The traffic mix: every kind's list, a spread of searches, and every kind of refusal. */
function trafficMix(build: Build): Template[] {
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const file = (
    path: string,
    encoding: Encoding = 'identity',
    extra: Record<string, string> = {},
    method: 'GET' | 'HEAD' = 'GET',
  ): Template => {
    const { target, status } = requestFor(path);
    const sha256 = build.stored.get(path) ?? '';
    const etag = status === 200 ? etagFor(sha256, encoding) : undefined;
    const label = `${method} ${path}${encoding === 'identity' ? '' : ` (${encoding})`}`;
    return {
      label,
      method,
      target,
      headers: { ...auth, 'Accept-Encoding': encoding, ...extra },
      expected: { status, body: build.body(path), encoding, etag, version: versionOf(path, build) },
    };
  };
  const paths = envelopePaths(build);
  const every = (pattern: RegExp, step: number) =>
    paths.filter((path) => pattern.test(path)).filter((_path, index) => index % step === 0);
  const text = (
    label: string,
    target: string,
    headers: Record<string, string>,
    status: number,
    body: string,
  ): Template => ({
    label,
    method: 'GET',
    target,
    headers: { 'Accept-Encoding': 'identity', ...headers },
    expected: { status, body: Buffer.from(body), encoding: 'identity', version: build.manifest.version },
  });
  const trees = listRoute('trees');
  const treesEtag = etagFor(build.stored.get(trees) ?? '', 'identity');
  return [
    ...kindIds.map((kind) => file(listRoute(kind))),
    ...every(/\/name\//, 7).map((path) => file(path)),
    ...every(/\/level\//, 5).map((path) => file(path)),
    ...kindIds.map((kind) => file(notFoundRoute(kind))),
    file(trees, 'br'),
    file(trees, 'gzip'),
    ...every(/\/name\//, 31).flatMap((path) => [file(path, 'br'), file(path, 'gzip')]),
    file(trees, 'identity', {}, 'HEAD'),
    file(trees, 'gzip', {}, 'HEAD'),
    {
      ...file(trees, 'identity', { 'If-None-Match': treesEtag }),
      label: 'GET trees, If-None-Match current',
      expected: { status: 304, encoding: 'identity', etag: treesEtag, version: build.manifest.version },
    },
    { ...file(trees, 'identity', { 'If-None-Match': '"stale"' }), label: 'GET trees, If-None-Match stale' },
    text('no token', '/api/trees', {}, 401, TOKEN_REQUIRED_BODY),
    text('bad token', '/api/trees', { Authorization: 'Bearer not-the-token' }, 401, TOKEN_INVALID_BODY),
    text('unknown endpoint', '/api/unicorns', { Authorization: `Bearer ${TOKEN}` }, 404, UNKNOWN_ENDPOINT_BODY),
  ];
}

/** Why `outcome` is not the right answer to `template`, or undefined. */
function wrongness(template: Template, outcome: Outcome): string | undefined {
  const { expected } = template;
  const header = (name: string) => outcome.headers[name];
  if (outcome.status !== expected.status) return `status ${outcome.status}, expected ${expected.status}`;
  if (header('x-data-version') !== expected.version)
    return `X-Data-Version ${header('x-data-version')}, expected ${expected.version}`;
  if (expected.etag !== undefined && header('etag') !== expected.etag)
    return `ETag ${header('etag')}, expected ${expected.etag}`;
  if (expected.status === 304 || template.method === 'HEAD') {
    if (outcome.body.length > 0)
      return `${outcome.body.length} body bytes after a ${template.method} ${outcome.status}`;
  }
  if (expected.status === 304) return undefined;
  if (header('content-type') !== JSON_CONTENT_TYPE) return `Content-Type ${header('content-type')}`;
  if ((header('content-encoding') ?? 'identity') !== expected.encoding)
    return `Content-Encoding ${header('content-encoding')}`;
  if (!/\bAccept-Encoding\b/i.test(String(header('vary')))) return `Vary ${header('vary')}`;
  if (template.method === 'HEAD') return undefined;
  if (Number(header('content-length')) !== outcome.body.length)
    return `Content-Length ${header('content-length')} for ${outcome.body.length} bytes`;
  if (
    expected.body &&
    !decodeBody(outcome.body, String(header('content-encoding') ?? 'identity')).equals(expected.body)
  )
    return 'body differs from dist/';
  return undefined;
}

function send(agent: Agent, origin: URL, template: Template): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: origin.hostname,
        port: origin.port,
        agent,
        method: template.method,
        path: template.target,
        headers: template.headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.once('error', reject);
    request.end();
  });
}

async function main(): Promise<void> {
  if (!existsSync(join(distDir, MANIFEST_FILE))) throw new Error('dist/ is not built: run npm run build first.');
  const build = readBuild(distDir);
  const templates = trafficMix(build);
  const server = await startServe({ tokens: [TOKEN] });
  // The serving process's memory, not its supervisor's.
  const pid = servingProcesses(server.child.pid ?? 0)[0] ?? server.child.pid ?? 0;
  const origin = new URL(server.url);
  console.log(
    `Soak: ${SECONDS} s (warm-up ${WARMUP_SECONDS} s), ${CONNECTIONS} keep-alive connections, ` +
      `${templates.length} request kinds, ${RELOADS} SIGHUP reloads, server pid ${pid}`,
  );
  console.log(`Node ${process.version}, ${new Date().toISOString()}, data version ${build.manifest.version}\n`);

  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latency = createHistogram();
  const statuses = new Map<number, number>();
  const wrong = new Map<string, number>();
  const failures = new Map<string, number>();
  let requests = 0;
  let checked = 0;
  let running = true;
  const note = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  const client = async (offset: number) => {
    for (let index = offset; running; index++) {
      const template = templates[index % templates.length];
      if (!template) continue;
      const started = process.hrtime.bigint();
      let outcome: Outcome;
      try {
        outcome = await send(agent, origin, template);
      } catch (error) {
        note(failures, `${template.label}: ${(error as Error).message}`);
        continue;
      }
      latency.record(Number(process.hrtime.bigint() - started) || 1);
      requests++;
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      // Every status is checked; every 50th response in full.
      const full = requests % CHECK_ONE_IN === 0;
      const problem = full
        ? wrongness(template, outcome)
        : outcome.status === template.expected.status
          ? undefined
          : `status ${outcome.status}`;
      if (full) checked++;
      if (problem) note(wrong, `${template.label}: ${problem}`);
    }
  };

  const rss: { second: number; bytes: number }[] = [];
  const startedAt = performance.now();
  const sampler = setInterval(() => {
    residentBytes(pid).then(
      (bytes) => rss.push({ second: (performance.now() - startedAt) / 1000, bytes }),
      () => {},
    );
  }, 1000);
  const clients = Array.from({ length: CONNECTIONS }, (_, index) =>
    client(Math.floor((index * templates.length) / CONNECTIONS)),
  );
  await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
  const baseline = await residentBytes(pid);
  const requestsAtWarmup = requests;
  const measuredMs = (SECONDS - WARMUP_SECONDS) * 1000;
  for (let reload = 0; reload < RELOADS; reload++) {
    await new Promise((resolve) => setTimeout(resolve, measuredMs / (RELOADS + 1)));
    server.child.kill('SIGHUP');
  }
  await new Promise((resolve) => setTimeout(resolve, measuredMs / (RELOADS + 1)));
  running = false;
  await Promise.all(clients);
  clearInterval(sampler);
  const final = await residentBytes(pid);
  const elapsed = (performance.now() - startedAt) / 1000;
  agent.destroy();
  const exitCode = await server.stop('SIGTERM');

  const afterWarmup = rss.filter((sample) => sample.second >= WARMUP_SECONDS).map((sample) => sample.bytes);
  const peak = Math.max(final, ...afterWarmup);
  const fivexx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
  const total = (map: Map<string, number>) => [...map.values()].reduce((sum, count) => sum + count, 0);
  const failedConnections = total(failures);
  const wrongCount = total(wrong);
  const ms = (ns: number) => (ns / 1e6).toFixed(2);

  console.log('| measure | value |');
  console.log('|---|---:|');
  console.log(
    `| requests | ${requests} in ${elapsed.toFixed(1)} s (${Math.round(requests / elapsed)} req/s; ` +
      `${Math.round((requests - requestsAtWarmup) / (elapsed - WARMUP_SECONDS))} req/s after warm-up) |`,
  );
  console.log(
    `| statuses | ${[...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ')} |`,
  );
  console.log(
    `| latency p50 / p99 / max | ${ms(latency.percentile(50))} / ${ms(latency.percentile(99))} / ` +
      `${ms(latency.max)} ms |`,
  );
  console.log(`| checked in full | ${checked} (1 in ${CHECK_ONE_IN}); every status checked |`);
  console.log(`| 5xx | ${fivexx} |`);
  console.log(`| failed connections | ${failedConnections} |`);
  console.log(`| wrong responses | ${wrongCount} |`);
  console.log(
    `| server RSS | ${(baseline / MiB).toFixed(1)} MiB after warm-up, peak ${(peak / MiB).toFixed(1)} MiB, ` +
      `final ${(final / MiB).toFixed(1)} MiB: growth ${((peak - baseline) / MiB).toFixed(1)} MiB |`,
  );
  if (RELOADS > 0)
    console.log(`| SIGHUP reloads | ${(server.output().match(/^Reloaded/gm) ?? []).length} of ${RELOADS} done |`);
  console.log(`| SIGTERM | exit ${exitCode} |`);
  for (const [problem, count] of [...failures, ...wrong]) console.log(`  ${count} x ${problem}`);

  const goals: [boolean, string][] = [
    [fivexx === 0, 'zero 5xx'],
    [failedConnections === 0, 'zero failed connections'],
    [wrongCount === 0, 'every checked response right for its request'],
    [peak - baseline < GOALS.rssGrowthBytes, `RSS growth under ${GOALS.rssGrowthBytes / MiB} MiB after warm-up`],
    [exitCode === 0, 'the server drains and exits 0 on SIGTERM'],
  ];
  console.log('');
  for (const [met, goal] of goals) console.log(`${met ? 'PASS' : 'MISS'}  ${goal}`);
  if (goals.some(([met]) => !met)) process.exitCode = 1;
}

await main();
