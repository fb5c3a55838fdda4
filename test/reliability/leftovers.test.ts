// The check at the end of the integration project (test/setup/no-leftovers.ts) finds what a run
// leaves running: a process started from the checkout, and one whose parent was killed. And a
// runtime a file leaves open, or still starting, is closed at the file's end (close-runtimes.ts).
import { spawn } from 'node:child_process';
import { afterEach, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { exitOf, outputUntil } from '../support/child-output.ts';
import { ancestry, leftoverProcesses, processInfo } from '../support/leftover-processes.ts';
import { closeStartedRuntimes, startRuntime } from '../support/runtimes.ts';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as the test wanted.
    }
  }
});

const since = processInfo(process.pid)?.started ?? 0;
const found = () => leftoverProcesses(projectDir, since, ancestry(process.pid), -1).map(({ pid }) => pid);

/** A node process in the checkout that prints its child's id, the child running until killed. */
const parentOfSleeper = () =>
  spawn(
    process.execPath,
    [
      '-e',
      "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], " +
        "{ stdio: 'ignore' }); console.log('child ' + c.pid); setInterval(() => {}, 1e9);",
    ],
    { cwd: projectDir },
  );

test('a node process started from the checkout and still running is found; once stopped, it is not', async () => {
  const parent = parentOfSleeper();
  const child = Number(/child (\d+)/.exec(await outputUntil(parent, /child \d+\n/))?.[1]);
  started.push(child, parent.pid ?? 0);
  expect(found()).toEqual(expect.arrayContaining([parent.pid, child]));
  parent.kill('SIGTERM');
  process.kill(child, 'SIGTERM');
  await exitOf(parent);
  expect(found()).not.toContain(parent.pid);
});

test('a process whose parent was killed (SIGKILL) is found, its parent gone', async () => {
  const parent = parentOfSleeper();
  const child = Number(/child (\d+)/.exec(await outputUntil(parent, /child \d+\n/))?.[1]);
  started.push(child);
  parent.kill('SIGKILL');
  await exitOf(parent);
  expect(found()).toContain(child);
  expect(processInfo(child)?.parent).not.toBe(parent.pid);
});

test("a Worker still starting at its file's end is closed once started: no workerd of it runs on", async () => {
  // As a beforeAll that timed out leaves it: started, never awaited, never closed by the file.
  const starting = startRuntime('worker', { tokens: ['t'] });
  const ours = () => found().filter((pid) => ancestry(pid).has(process.pid));
  await closeStartedRuntimes();
  const runtime = await starting;
  await expect(fetch(`${runtime.url}/healthz`)).rejects.toThrow();
  expect(ours()).toEqual([]);
}, 180_000);
