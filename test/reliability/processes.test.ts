// The supervisor: WORKERS serving processes (one by default) behind one port, restarted when they die.
import { rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { describeBuild } from '../../src/server/settings.ts';
import { buildEditedApi, copyDist, tempDir } from '../support/builds.ts';
import { servingProcesses, startServe, until, type RunningServeChild } from '../support/serve-child.ts';

const TOKEN = 'processes-test-token';
let running: RunningServeChild | undefined;

afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
});

async function statuses(url: string, token: string, count: number): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      fetch(`${url}/api/trees?search=Oak%20Tree`, { headers: { Authorization: `Bearer ${token}` } }),
    ),
  );
  return answers.map((answer) => answer.status);
}

test('WORKERS=2 starts two serving processes behind one port and prints one banner', async () => {
  running = await startServe({ tokens: [TOKEN], processes: 2 });
  await until(() => servingProcesses(running?.child.pid ?? 0).length === 2);
  expect(running.output().match(/Tree farm data:/g)).toHaveLength(1);
  expect(running.output()).toContain('2 processes');
  expect(new Set(await statuses(running.url, TOKEN, 40))).toEqual(new Set([200]));
});

test('a token made up for the run is accepted by every serving process', async () => {
  running = await startServe({ processes: 2 });
  await until(() => running?.output().includes('Bearer ') ?? false);
  const token = /Bearer ([A-Za-z0-9_-]+)/.exec(running.output())?.[1] ?? '';
  expect(token).not.toBe('');
  // Fresh connections are spread over the processes; every one must know the token.
  expect(new Set(await statuses(running.url, token, 40))).toEqual(new Set([200]));
});

test('a serving process that dies is replaced and the API keeps answering', async () => {
  running = await startServe({ tokens: [TOKEN], processes: 2 });
  await until(() => servingProcesses(running?.child.pid ?? 0).length === 2);
  const [victim] = servingProcesses(running.child.pid ?? 0);
  process.kill(victim ?? 0, 'SIGKILL');
  await until(() => running?.output().includes('died (SIGKILL)') ?? false);
  await until(() => {
    const now = servingProcesses(running?.child.pid ?? 0);
    return now.length === 2 && !now.includes(victim ?? 0);
  });
  expect(new Set(await statuses(running.url, TOKEN, 40))).toEqual(new Set([200]));
});

const RESTARTED_ALONE =
  'WORKERS=1 (the default): a serving process that dies is restarted, says so, answers on the same port';
test(RESTARTED_ALONE, async () => {
  running = await startServe({ tokens: [TOKEN] });
  await until(() => servingProcesses(running?.child.pid ?? 0).length === 1);
  const [victim] = servingProcesses(running.child.pid ?? 0);
  process.kill(victim ?? 0, 'SIGKILL');
  await until(
    () => running?.output().includes(`Serving process ${victim} died (SIGKILL): starting another`) ?? false,
    20_000,
  );
  await until(() => /Serving process \d+ serving again/.test(running?.output() ?? ''), 30_000);
  const [replacement] = servingProcesses(running.child.pid ?? 0);
  expect(running.output()).toContain(`Serving process ${replacement} serving again.`);
  expect(new Set(await statuses(running.url, TOKEN, 10))).toEqual(new Set([200]));
});

test('SIGHUP reloads every serving process: each one says so and serves the new build', {
  timeout: 400_000,
}, async () => {
  const workDir = tempDir('workers');
  try {
    const liveDir = copyDist(join(workDir, 'dist'));
    running = await startServe({ tokens: [TOKEN], processes: 2, distDir: liveDir });
    await until(() => servingProcesses(running?.child.pid ?? 0).length === 2);
    const processes = servingProcesses(running.child.pid ?? 0);
    const next = await buildEditedApi(liveDir, workDir);

    running.child.kill('SIGHUP');
    const reloads = () => running?.output().match(/^process \d+: Reload.*$/gm) ?? [];
    await until(() => reloads().length >= 2, 15_000);
    expect(reloads().sort()).toEqual(processes.map((pid) => `process ${pid}: Reloaded: ${describeBuild(next)}`).sort());
    // Fresh connections reach both processes: every answer is of the new build.
    const versions = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const response = await fetch(`${running?.url}/api/trees`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        await response.arrayBuffer();
        return response.headers.get('x-data-version');
      }),
    );
    expect(new Set(versions)).toEqual(new Set([next.version]));
  } finally {
    await running?.stop('SIGKILL');
    running = undefined;
    rmSync(workDir, { recursive: true, force: true });
  }
});

test('SIGTERM stops every serving process and the supervisor exits 0', async () => {
  running = await startServe({ tokens: [TOKEN], processes: 2 });
  await until(() => servingProcesses(running?.child.pid ?? 0).length === 2);
  const children = servingProcesses(running.child.pid ?? 0);
  expect(await running.stop('SIGTERM')).toBe(0);
  for (const pid of children) expect(() => process.kill(pid, 0)).toThrow();
});

test('a damaged build is refused: the serving process names the file and the supervisor exits', async () => {
  await expect(startServe({ tokens: [TOKEN], processes: 2, distDir: '/nonexistent-dist' })).rejects.toThrow(
    /manifest\.json is missing/,
  );
});

/** Long enough for a loaded machine; the supervisor's deadline on a count is 1 s. */
const ANSWER_WITHIN_MS = 20_000;

interface Answer {
  status: number;
  /** The RateLimit header: `"token";r=<left>;t=<seconds>`. */
  rateLimit: string | undefined;
}

/** A GET on a new connection of its own (none kept alive): one the server must accept now. */
function getOnNewConnection(url: string, path: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const request = httpGet(`${url}${path}`, { agent: false, headers, timeout: ANSWER_WITHIN_MS }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, rateLimit: response.headers.ratelimit as string | undefined }),
      );
    });
    request.on('timeout', () => request.destroy(new Error(`no answer to ${path} in ${ANSWER_WITHIN_MS / 1000} s`)));
    request.on('error', reject);
  });
}

/** Waits, if needed, until a clock-aligned window of `seconds` has at least `leftMs` to go. */
async function windowWithRoom(seconds: number, leftMs: number): Promise<void> {
  const into = Date.now() % (seconds * 1000);
  if (into > seconds * 1000 - leftMs) await new Promise((resolve) => setTimeout(resolve, seconds * 1000 - into + 50));
}

const STOPPED_SUPERVISOR =
  'WORKERS=2 with a stopped supervisor (SIGSTOP): new connections are served, counts fall back to ' +
  "each process's own under the same limit, said once; SIGCONT brings back the one count";
test(STOPPED_SUPERVISOR, { timeout: 240_000 }, async () => {
  const [stalled, shared] = ['stalled-count-token', 'shared-count-token'];
  // 10 a minute: each token's burst below stays in one window, and the first sight of each of
  // the three tokens in each process (an address count each) stays under the address's limit.
  running = await startServe({ tokens: [TOKEN, stalled, shared], processes: 2, rateLimit: '10/60s', accessLog: 'off' });
  const supervisor = running.child.pid ?? 0;
  await until(() => servingProcesses(supervisor).length === 2);
  const api = '/api/trees?search=Oak%20Tree';
  const aloneLines = () =>
    running?.output().match(/^process \d+: the supervisor did not answer a rate count .*$/gm) ?? [];
  const againLines = () => running?.output().match(/^process \d+: the supervisor answers rate counts again.*$/gm) ?? [];

  process.kill(supervisor, 'SIGSTOP');
  try {
    expect((await getOnNewConnection(running.url, '/healthz')).status).toBe(200);
    expect((await getOnNewConnection(running.url, api, TOKEN)).status).toBe(200);
    await until(() => aloneLines().length > 0, 30_000);
    expect(aloneLines()[0]).toMatch(
      /^process \d+: the supervisor did not answer a rate count within 1 s: counting this process's requests alone/,
    );
    // Each process counts alone, under the same limit: 10 each at most, never 30 of 30.
    await windowWithRoom(60, 30_000);
    const burst: Answer[] = [];
    for (let request = 0; request < 30; request++) burst.push(await getOnNewConnection(running.url, api, stalled));
    const allowed = burst.filter((answer) => answer.status === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(10);
    expect(allowed).toBeLessThanOrEqual(20);
    expect(burst.filter((answer) => answer.status === 429)).toHaveLength(30 - allowed);
    // Said once by each process that counted alone, however many requests it counted so.
    const speakers = aloneLines().map((line) => line.split(':')[0]);
    expect(speakers).toEqual([...new Set(speakers)]);
  } finally {
    process.kill(supervisor, 'SIGCONT');
  }

  await until(() => againLines().length === aloneLines().length, 30_000);
  expect(
    againLines()
      .map((line) => line.split(':')[0])
      .sort(),
  ).toEqual(
    aloneLines()
      .map((line) => line.split(':')[0])
      .sort(),
  );
  // One count again, whichever process answers: what is left goes down by one a request.
  await windowWithRoom(60, 30_000);
  const left: string[] = [];
  for (let request = 0; request < 6; request++)
    left.push(/r=(\d+)/.exec((await getOnNewConnection(running.url, api, shared)).rateLimit ?? '')?.[1] ?? '');
  expect(left).toEqual(['9', '8', '7', '6', '5', '4']);
  expect((await getOnNewConnection(running.url, '/healthz')).status).toBe(200);
});
