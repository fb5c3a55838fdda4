// The local Worker launcher (src/server/worker-dev.ts): wrangler runs as a process group of
// its own, and closing it ends every process of that group (its CLI, esbuild, workerd), so
// a test run leaves nothing behind: each stray workerd held gigabytes of memory.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { startWorker } from '../../src/server/worker-dev.ts';
import { distDir, freePort } from '../support/runtimes.ts';

/** The processes of a process group, by the group's id. */
const groupMembers = (groupId: number) =>
  spawnSync('pgrep', ['-g', String(groupId)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);

test('closing the local Worker ends wrangler, esbuild and workerd: no process of its group is left', async () => {
  const worker = await startWorker({ port: await freePort(), assetsDir: distDir, tokens: ['t'] });
  const groupId = worker.process.pid ?? 0;
  // wrangler's CLI starts workerd (and esbuild) in the group.
  expect(groupMembers(groupId).length).toBeGreaterThan(1);
  await worker.close();
  // Killed processes leave the table once reaped: wait for that, up to 10 s.
  for (let waited = 0; groupMembers(groupId).length > 0 && waited < 10_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(groupMembers(groupId)).toEqual([]);
});
