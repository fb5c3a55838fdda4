// `npm run bench:serve`: throughput and p99 latency of the local server, side by side in one
// run with (a) a dynamic Fastify server shaped like the service it replaces and (b) a static
// ceiling: nginx serving the same bytes when installed, else a bare node:http server. Load
// comes from wrk (or autocannon) in a second process on loopback, 32 connections.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectDir } from '../src/build/site.ts';
import { namePath, listPath } from '../src/contract/paths.ts';
import { searchKey } from '../src/contract/search-key.ts';
import { freePort } from '../test/support/runtimes.ts';
import {
  has,
  load,
  loaderLine,
  measure,
  median,
  nodeTarget,
  ROUNDS,
  startChild,
  withChildren,
  type Result,
  type Target,
} from './lib/load.ts';

const distDir = join(projectDir, 'dist');

const scenarios = [
  { name: 'name search', query: '/api/trees?search=Oak%20Tree', file: namePath('trees', searchKey('Oak Tree')) },
  { name: 'full list', query: '/api/trees', file: listPath('trees') },
];

async function nginxTarget(): Promise<Target> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  const locations = scenarios.map(
    (scenario, index) =>
      `location = /s${index} { default_type application/json; alias ${join(distDir, scenario.file)}; }`,
  );
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''} worker_processes auto; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen 127.0.0.1:${port}; location = / { return 204; } ${locations.join(' ')} } }\n`,
  );
  const child = await startChild('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], {}, port);
  return {
    name: 'nginx (static ceiling)',
    role: 'ceiling',
    pids: () => withChildren(child),
    url: (scenario) => `http://127.0.0.1:${port}/s${scenarios.findIndex((known) => known.query === scenario.query)}`,
    stop: () => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const targets: Target[] = [];
try {
  targets.push(await nodeTarget('this server (npm start)', 'ours', 'src/server/serve.ts'));
  targets.push(await nodeTarget('this server, WORKERS=2', 'ours', 'src/server/serve.ts', { WORKERS: '2' }));
  targets.push(await nodeTarget('Fastify, dynamic (baseline)', 'baseline', 'bench/baseline/fastify-server.ts'));
  if (has('nginx')) targets.push(await nginxTarget());
  else
    for (const scenario of scenarios)
      targets.push(
        await nodeTarget(`node:http preloaded buffer: ${scenario.name}`, 'ceiling', 'bench/baseline/node-static.ts', {
          BODY_FILE: join(distDir, scenario.file),
        }),
      );

  console.log(`${loaderLine()}\n`);
  const lines = [
    '| scenario | server | req/s | p99 ms | errors | CPU µs/req | vs baseline | vs static |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  let allMet = true;
  for (const scenario of scenarios) {
    const rounds = new Map<Target, Result[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, so a noisy moment on this shared machine hits every server alike.
      for (const target of targets) {
        if (target.name.startsWith('node:http') && !target.name.endsWith(scenario.name)) continue;
        load(target.url(scenario)); // warm-up round trip for the JIT and the connection pool
        rounds.get(target)?.push(measure(target, target.url(scenario)));
      }
    }
    const summary = (target: Target | undefined): Result | undefined => {
      const results = target ? rounds.get(target) : undefined;
      if (!results?.length) return undefined;
      return {
        cpuMicros: median(results.map((result) => result.cpuMicros)),
        requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
        p99Ms: median(results.map((result) => result.p99Ms)),
        errors: results.reduce((sum, result) => sum + result.errors, 0),
      };
    };
    const baseline = summary(targets.find((target) => target.role === 'baseline'));
    const ceiling = summary(
      targets.find((target) => target.role === 'ceiling' && (rounds.get(target)?.length ?? 0) > 0),
    );
    const ours: Result[] = [];
    for (const target of targets) {
      const result = summary(target);
      if (!result) continue;
      const isOurs = target.role === 'ours';
      if (isOurs) ours.push(result);
      const vsBaseline = isOurs && baseline ? result.requestsPerSecond / baseline.requestsPerSecond : undefined;
      const vsCeiling = isOurs && ceiling ? result.requestsPerSecond / ceiling.requestsPerSecond : undefined;
      lines.push(
        `| ${scenario.name} | ${target.name} | ${Math.round(result.requestsPerSecond)} | ${result.p99Ms.toFixed(2)} | ${result.errors} | ${result.cpuMicros.toFixed(1)} | ${vsBaseline ? `${vsBaseline.toFixed(2)}x` : ''} | ${vsCeiling ? `${vsCeiling.toFixed(2)}x` : ''} |`,
      );
    }
    if (baseline && ceiling) {
      // Met when either configuration of this server meets every goal.
      allMet &&= ours.some(
        (result) =>
          result.requestsPerSecond >= 2.5 * baseline.requestsPerSecond &&
          result.requestsPerSecond >= 0.5 * ceiling.requestsPerSecond &&
          result.p99Ms <= 5 &&
          result.errors === 0,
      );
    }
  }
  console.log(lines.join('\n'));
  console.log(
    `\nGoals (each scenario: >= 2.5x baseline, >= 0.5x static, p99 <= 5 ms, no errors): ${allMet ? 'MET' : 'MISSED'}`,
  );
} finally {
  for (const target of targets) target.stop();
}
