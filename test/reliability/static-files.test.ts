// Static files under abuse, against serve.ts in its own process on a copy of dist/: clients
// that pipeline a large file and drop the connection leave no file open, and a file that
// vanishes while it is asked for is an error answer, never the end of the process; a bundle
// gone or cut short is the 500 of an unreadable download, never an empty or stalled reply.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ASSETS_IGNORE_FILE } from '../../src/contract/build-files.ts';
import { DOWNLOADS_DIR, type Latest, PUBLISHED_BUNDLES } from '../../src/contract/bundle-layout.ts';
import { API_DIR } from '../../src/contract/paths.ts';
import { CONTRACT_FAILURE, failureSeen } from '../support/failure-answer.ts';
import { rawRequest, requestBytes } from '../support/http.ts';
import { copyDist, filesBelow, tempDir } from '../support/builds.ts';
import {
  openDescriptors,
  servingProcesses,
  startServe,
  until,
  type RunningServeChild,
} from '../support/serve-child.ts';

let workDir: string;
let liveDir: string;
let server: RunningServeChild;
beforeAll(async () => {
  workDir = tempDir('static-files');
  liveDir = copyDist(join(workDir, 'dist'));
  server = await startServe({ distDir: liveDir, tokens: ['static-files-token'] });
});
afterAll(async () => {
  await server?.stop('SIGKILL');
  rmSync(workDir, { recursive: true, force: true });
});

/** The process that serves (the supervisor's child; the process itself where there is none). */
function servingPid(): number {
  const supervisor = server.child.pid ?? 0;
  return servingProcesses(supervisor)[0] ?? supervisor;
}

/** The largest file the static site serves (a download bundle, say), as a request target. */
function largestStaticFile(): { target: string; bytes: number } {
  const served = filesBelow(liveDir).filter(
    (path) => !path.startsWith(`${API_DIR}/`) && path !== '_headers' && path !== ASSETS_IGNORE_FILE,
  );
  const sizes = served.map((path) => ({ target: `/${path}`, bytes: statSync(join(liveDir, path)).size }));
  return sizes.reduce((largest, file) => (file.bytes > largest.bytes ? file : largest));
}

/** A client that pipelines `count` requests for `target`, and drops the connection once its first bytes arrive. */
function pipelineAndDrop(target: string, count: number): Promise<void> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(Buffer.concat(Array.from({ length: count }, () => requestBytes('localhost', { target })))),
    );
    socket.once('data', () => socket.destroy());
    socket.on('error', () => {});
    socket.once('close', () => resolve());
  });
}

const DROPPED_PIPELINES =
  'after 150 clients each pipeline 32 requests for the largest static file and disconnect, ' +
  'open files return to where they were and it still answers';
test(DROPPED_PIPELINES, async () => {
  const file = largestStaticFile();
  const pid = servingPid();
  // Served once first, so what serve-handler keeps for good (the file's ETag) is made before counting.
  expect((await rawRequest(server.url, { target: file.target })).body.length).toBe(file.bytes);
  const before = openDescriptors(pid);

  await Promise.all(Array.from({ length: 150 }, () => pipelineAndDrop(file.target, 32)));

  // Closing is asynchronous: wait for it, with room for a slow machine.
  await until(() => openDescriptors(pid) <= before, 60_000);
  expect(openDescriptors(pid)).toBeLessThanOrEqual(before);
  expect(servingPid()).toBe(pid);
  const after = await rawRequest(server.url, { target: file.target });
  expect({ status: after.status, bytes: after.body.length }).toEqual({ status: 200, bytes: file.bytes });
}, 120_000);

const VANISHING_FILE =
  'a file that vanishes while it is asked for is answered whole or with an error, and the process lives';
test(VANISHING_FILE, async () => {
  const target = '/openapi.json';
  const file = join(liveDir, 'openapi.json');
  const bytes = readFileSync(file);
  const pid = servingPid();
  const answers = new Map<string, number>();
  let renaming = true;
  // Away and back, as a rebuild in place would, while six clients ask for it.
  const renames = (async () => {
    for (let round = 0; renaming && round < 2_000; round++) {
      renameSync(file, `${file}.away`);
      await new Promise((resolve) => setImmediate(resolve));
      renameSync(`${file}.away`, file);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const client = async () => {
    for (let request = 0; request < 150; request++) {
      const response = await rawRequest(server.url, { target });
      const answer =
        response.status === 200 && !response.body.equals(bytes) ? '200 with a wrong body' : String(response.status);
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
  };
  try {
    await Promise.all(Array.from({ length: 6 }, client));
  } finally {
    renaming = false;
    await renames;
  }

  console.log(`answers while the file came and went: ${JSON.stringify(Object.fromEntries(answers))}`);
  expect([...answers.keys()].filter((answer) => !['200', '404', '500'].includes(answer))).toEqual([]);
  expect(servingPid()).toBe(pid);
  expect(server.output()).not.toContain('died');
  expect((await rawRequest(server.url, { target })).body.equals(bytes)).toBe(true);
}, 120_000);

const UNREADABLE_BUNDLE =
  "a bundle removed or cut short while the server runs is the contract's JSON 500, not an empty or stalled reply";
test(UNREADABLE_BUNDLE, async () => {
  const latest = JSON.parse(readFileSync(join(liveDir, PUBLISHED_BUNDLES), 'utf8')) as Latest;
  const { name } = latest.bundles[0] ?? { name: '' };
  const target = `/${DOWNLOADS_DIR}/${name}`;
  const file = join(liveDir, DOWNLOADS_DIR, name);
  const bytes = readFileSync(file);
  /** What a client sees of the bundle's answer. */
  const answer = async (headers: [string, string][] = []) => {
    const { status, headers: sent, body } = await rawRequest(server.url, { target, headers });
    return failureSeen(new Response(body.length > 0 ? new Uint8Array(body) : null, { status, headers: sent }));
  };
  try {
    rmSync(file);
    expect(await answer()).toEqual(CONTRACT_FAILURE);
    writeFileSync(file, bytes.subarray(0, bytes.length - 100));
    expect(await answer()).toEqual(CONTRACT_FAILURE);
    expect(await answer([['Range', 'bytes=-10']])).toEqual(CONTRACT_FAILURE);
  } finally {
    writeFileSync(file, bytes);
  }
  // The detail goes to the server's log: the file's size and the size latest.json states.
  expect(server.output()).toContain(
    `has ${bytes.length - 100} bytes where ${PUBLISHED_BUNDLES} states ${bytes.length}`,
  );
  expect((await rawRequest(server.url, { target })).body.equals(bytes)).toBe(true);
}, 120_000);
