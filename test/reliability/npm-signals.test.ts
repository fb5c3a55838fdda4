// What a supervisor, systemd or a terminal signals is the pid `npm start` returns: npm forwards
// SIGTERM and SIGINT to its script, which execs node (package.json), so the signal reaches the
// server itself. It drains (a request in flight is answered) and every process of the tree exits;
// without `exec` the shell npm runs would take the signal and leave the server running.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { afterEach, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { exitOf } from '../support/child-output.ts';
import { halfSentRequest } from '../support/http.ts';
import { until } from '../support/serve-child.ts';

const TOKEN = 'npm-signals-test-token';
/** Every process started under the npm of the test running, npm's included. */
let started: number[] = [];
/** npm's process group (npm runs in one of its own): whatever a failed test leaves is killed with it. */
let group: number | undefined;

afterEach(() => {
  for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
  try {
    if (group !== undefined) process.kill(-group, 'SIGKILL');
  } catch {
    // The group is empty: nothing was left.
  }
  started = [];
  group = undefined;
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `pid` and all its descendants now (Linux: pgrep -P). */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // pgrep exits 1 when there is none.
  }
  return [pid, ...children.flatMap(processTree)];
}

/** `npm start` as an operator runs it, on a free port of loopback with two serving processes. */
function npmStart(): { npm: ChildProcess; output: () => string } {
  const npm = spawn('npm', ['start'], {
    cwd: projectDir,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      API_TOKENS: TOKEN,
      API_TOKEN_SHA256: '',
      DIST_DIR: '',
      WORKERS: '2',
      API_RATE_LIMIT: '',
      ACCESS_LOG: 'off',
      TRUST_PROXY: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  group = npm.pid;
  let output = '';
  npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { npm, output: () => output };
}

test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s to the pid npm start returns drains the server and leaves nothing running',
  { timeout: 180_000 },
  async (signal) => {
    const { npm, output } = npmStart();
    const exited = exitOf(npm);
    let hasExited = false;
    void exited.then(() => (hasExited = true));
    await until(() => /API: +http:\/\/\S+\/api\//.test(output()) || hasExited);
    const origin = /API: +(http:\/\/[^/\s]+)\/api\//.exec(output())?.[1];
    if (!origin) throw new Error(`npm start exited before it served:\n${output()}`);
    const npmPid = npm.pid ?? 0;
    // npm, the node it execs (the supervisor), and the two serving processes it forks.
    await until(() => processTree(npmPid).length >= 4 || hasExited);
    started = processTree(npmPid);

    // A request in flight: its request line and half its headers, the rest after the signal.
    const inFlight = await halfSentRequest(origin, TOKEN);

    npm.kill(signal);
    // The server says it drains, or npm exits without it having said so (the signal went elsewhere).
    await until(() => output().includes(`${signal}: finishing in-flight requests`) || hasExited);
    inFlight.finish();
    await Promise.race([inFlight.closed, exited]);
    const received = inFlight.received().toString('latin1');

    expect(output()).toContain(`${signal}: finishing in-flight requests in 2 serving processes, then stopping.`);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(started.filter(alive)).toEqual([]);
  },
);
