// Faults around the build folder and the server process, through the serve.ts CLI on copies
// of dist/ in temp folders: a damaged build is refused at start-up naming the file (and the
// Worker, which cannot refuse to start, never serves a file that differs from the manifest); SIGHUP
// swaps in a complete rebuild whole or keeps the old one; SIGTERM lets in-flight requests
// finish; a build killed midway leaves the previous one intact.
import { appendFileSync, cpSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { replaceAtomically } from '../../src/build/atomic.ts';
import { PACK_FILE } from '../../src/contract/build-files.ts';
import { listRoute, MANIFEST_FILE, shardPath, storedBodyPath } from '../../src/contract/paths.ts';
import { routeBody, routeBytes } from '../support/dist-routes.ts';
import { postMcp, toolCall } from '../support/mcp.ts';
import { killBuildMidway } from '../fixtures/killed-build.ts';
import { CONTRACT_FAILURE, failureSeen } from '../support/failure-answer.ts';
import { halfSentRequest, parseResponses, type RawResponse, rawRequest } from '../support/http.ts';
import { distDir, startRuntime } from '../support/runtimes.ts';
import { differencesFrom, getApi, mismatch } from '../support/api-client.ts';
import {
  buildEditedApi,
  copyDist,
  corruptPacked,
  decodeBody,
  envelopePaths,
  filesBelow,
  packOffset,
  readBuild,
  requestFor,
  tempDir,
  type Build,
} from '../support/builds.ts';
import { spawnServe, startServe, until, type RunningServeChild } from '../support/serve-child.ts';

const TOKEN = 'reliability-token';
const treesList = listRoute('trees');
/** The stored body of the trees list. */
const treesBody = storedBodyPath(routeBody(treesList) ?? '');
/** A shard of the routing index of the current data. */
const indexFile = shardPath(undefined, 0);
/** The first body the shard names, and the same name with its first hex digit changed. */
const firstNamed =
  Object.values(JSON.parse(readFileSync(join(distDir, indexFile), 'utf8')) as Record<string, string>)[0] ?? '';
const misnamed = `${firstNamed.startsWith('0') ? '1' : '0'}${firstNamed.slice(1)}`;

let workDir: string;
let liveDir: string;
let server: RunningServeChild | undefined;
beforeEach(() => {
  workDir = tempDir('faults');
  liveDir = copyDist(join(workDir, 'dist'));
});
afterEach(async () => {
  await server?.stop('SIGKILL');
  server = undefined;
  rmSync(workDir, { recursive: true, force: true });
});

/** Sends SIGHUP and waits for the server to say whether it reloaded. */
async function reload(running: RunningServeChild): Promise<string> {
  const before = running.output().length;
  const said = () => /^(?:Reloaded|Reload refused).*$/m.exec(running.output().slice(before))?.[0];
  running.child.kill('SIGHUP');
  await until(() => said() !== undefined);
  return said() ?? '';
}

describe('a damaged build is refused at start-up with a message naming the file', () => {
  // The server reads every stored body from the pack, checking each against its SHA-256, and
  // every route of the index against the bodies.
  const damages: [string, string, (dir: string) => void][] = [
    ['a corrupted body (in the pack)', treesBody, (dir) => corruptPacked(dir, treesList)],
    [
      'a pack truncated in the middle of a body',
      PACK_FILE,
      (dir) => truncateSync(join(dir, PACK_FILE), packOffset(dir, treesList) + 100),
    ],
    ['a pack longer than the manifest says', PACK_FILE, (dir) => appendFileSync(join(dir, PACK_FILE), '\n')],
    ['a missing pack', PACK_FILE, (dir) => rmSync(join(dir, PACK_FILE))],
    [
      'a shard of the routing index naming a body the build does not hold',
      storedBodyPath(misnamed),
      (dir) => {
        const file = join(dir, indexFile);
        writeFileSync(file, readFileSync(file, 'utf8').replace(firstNamed, misnamed));
      },
    ],
    ['a missing shard of the routing index', indexFile, (dir) => rmSync(join(dir, indexFile))],
    ['a missing manifest', MANIFEST_FILE, (dir) => rmSync(join(dir, MANIFEST_FILE))],
    ['a truncated manifest', MANIFEST_FILE, (dir) => truncateSync(join(dir, MANIFEST_FILE), 40)],
  ];
  test.each(damages)('%s', async (_damage, path, damage) => {
    damage(liveDir);
    const served = spawnServe({ distDir: liveDir, tokens: [TOKEN] });
    expect(await served.exited).toBe(1);
    expect(served.output()).toContain(`Cannot start: ${join(liveDir, path)}`);
    expect(served.output()).not.toContain('API:');
  });
});

/** A raw answer as fetch gives it, its body decoded, for failureSeen. */
const fetched = (raw: RawResponse) =>
  new Response(new Uint8Array(decodeBody(raw.body, raw.headers['content-encoding'])), {
    status: raw.status,
    headers: raw.headers,
  });

test('the Worker never serves, nor answers a tool from, a stored body whose bytes differ from its digest', async () => {
  const file = join(liveDir, treesBody);
  const original = readFileSync(file);
  const tampered = Buffer.from(original.toString('latin1').replace('"level":1,', '"level":7,'), 'latin1');
  expect(tampered.length).toBe(original.length);
  expect(tampered.equals(original)).toBe(false);
  writeFileSync(file, tampered);
  const tamperedList = routeBytes(treesList, 'identity', undefined, liveDir);
  const worker = await startRuntime('worker', { tokens: [TOKEN], servedDir: liveDir });
  try {
    for (const coding of ['identity', 'gzip', 'br', 'identity']) {
      const headers: [string, string][] = [
        ['Authorization', `Bearer ${TOKEN}`],
        ['Accept-Encoding', coding],
      ];
      const response = await rawRequest(worker.url, { target: '/api/trees', headers });
      const body = response.status === 200 ? decodeBody(response.body, response.headers['content-encoding']) : null;
      expect({ coding, status: response.status, tamperedBytes: body?.equals(tamperedList) ?? false }).toEqual({
        coding,
        status: 500,
        tamperedBytes: false,
      });
      // The contract's JSON 500 with CORS, not workerd's page with a stack trace and source paths.
      expect(await failureSeen(fetched(response))).toEqual(CONTRACT_FAILURE);
    }
    // The rest of the build, which matches its manifest, is served as usual.
    const cutters = await rawRequest(worker.url, {
      target: '/api/cutters',
      headers: [['Authorization', `Bearer ${TOKEN}`]],
    });
    expect(cutters.status).toBe(200);
    expect(cutters.body.equals(routeBytes(listRoute('cutters'), 'identity', undefined, liveDir))).toBe(true);
    // A tool that reads the tampered body says it could not, as a JSON-RPC error with no internals in it.
    const call = await postMcp(worker.url, toolCall('list_records', { kind: 'trees' }), { token: TOKEN });
    expect(await call.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'list_records could not read the data to answer; try again later.' },
    });
    const cutterTool = await postMcp(worker.url, toolCall('list_records', { kind: 'cutters' }), { token: TOKEN });
    const { result } = (await cutterTool.json()) as { result: { structuredContent: { records: unknown[] } } };
    expect(result.structuredContent.records).toEqual(
      JSON.parse(routeBytes(listRoute('cutters'), 'identity', undefined, liveDir).toString('utf8')).data,
    );
  } finally {
    await worker.close();
  }
});

// Seeding wrangler's local R2 and starting wrangler: minutes on a loaded machine, as a suite's beforeAll gets.
test("the Worker's R2 mode answers a body object cut short in the bucket with the contract's JSON 500", {
  timeout: 180_000,
}, async () => {
  const persistDir = join(workDir, 'r2');
  const worker = await startRuntime('worker-r2', { tokens: [TOKEN], persistDir });
  try {
    // The seeded object of the trees list, found by its bytes in wrangler's local R2, cut short.
    const whole = readFileSync(join(distDir, treesBody));
    const stored = filesBelow(persistDir).filter((path) => readFileSync(join(persistDir, path)).equals(whole));
    expect(stored).toHaveLength(1);
    truncateSync(join(persistDir, stored[0] ?? ''), whole.length - 100);
    const get = (target: string) => rawRequest(worker.url, { target, headers: [['Authorization', `Bearer ${TOKEN}`]] });
    expect(await failureSeen(fetched(await get('/api/trees')))).toEqual(CONTRACT_FAILURE);
    // The objects that are whole are served.
    expect((await get('/api/cutters')).body.equals(routeBytes(listRoute('cutters')))).toBe(true);
  } finally {
    await worker.close();
  }
});

// Each rebuilds dist/ and reloads: minutes on a loaded machine, so they get room well past the default.
describe('SIGHUP reload', { timeout: 400_000 }, () => {
  let previous: Build;
  beforeEach(async () => {
    previous = readBuild(liveDir);
    server = await startServe({ distDir: liveDir, tokens: [TOKEN] });
  });

  test('a complete rebuild swapped in atomically is served whole: every API file of the new version', async () => {
    const next = await buildEditedApi(liveDir, workDir);
    expect(next.version).not.toBe(previous.manifest.version);
    expect(await reload(server!)).toMatch(/^Reloaded: data version [0-9a-f]+/);
    expect(await differencesFrom(server!.url, TOKEN, readBuild(liveDir))).toEqual([]);
  });

  const incomplete: [string, (next: Build) => void][] = [
    [
      'half-written in place (the new manifest, the changed files not yet)',
      (next) => cpSync(join(next.dir, MANIFEST_FILE), join(liveDir, MANIFEST_FILE)),
    ],
    [
      'complete but with one corrupted file',
      (next) => {
        cpSync(next.dir, liveDir, { recursive: true });
        corruptPacked(liveDir, treesList);
      },
    ],
    ['missing (between the two renames of a swap)', () => renameSync(liveDir, `${liveDir}-retired`)],
  ];
  test.each(incomplete)(
    'a build that is %s is refused and the previous build stays served whole',
    async (_state, damage) => {
      const nextDir = join(workDir, 'next');
      await buildEditedApi(nextDir, workDir);
      damage(readBuild(nextDir));
      expect(await reload(server!)).toMatch(/^Reload refused, still serving the previous build: \/\S+ /);
      expect(await differencesFrom(server!.url, TOKEN, previous)).toEqual([]);
    },
  );

  test('under load through a refused and an accepted reload, every response is whole and of one version', async () => {
    const nextDir = join(workDir, 'next');
    await buildEditedApi(nextDir, workDir);
    const next = readBuild(nextDir);
    const builds = [previous, next];
    const paths = envelopePaths(previous).filter((path) => next.answers.has(path));
    const problems: string[] = [];
    const versionsSeen = new Set<string | null>();
    let loading = true;
    const client = async () => {
      for (let index = 0; loading; index++) {
        const path = paths[index % paths.length] ?? treesList;
        const response = await getApi(server!.url, requestFor(path).target, TOKEN);
        versionsSeen.add(response.version);
        const problem = mismatch(path, response, builds);
        if (problem) problems.push(problem);
      }
    };
    const clients = [client(), client(), client()];

    // A rebuild written in place, file by file, with a reload halfway: refused.
    cpSync(join(nextDir, MANIFEST_FILE), join(liveDir, MANIFEST_FILE));
    expect(await reload(server!)).toMatch(/^Reload refused/);
    // The complete rebuild swapped in whole, then reloaded: accepted.
    await replaceAtomically(liveDir, (staging) => cpSync(nextDir, staging, { recursive: true }));
    expect(await reload(server!)).toMatch(/^Reloaded/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    loading = false;
    await Promise.all(clients);

    expect(problems).toEqual([]);
    expect(versionsSeen).toEqual(new Set(builds.map((build) => build.manifest.version)));
  });
});

describe('SIGTERM', () => {
  test('lets a request in flight finish, ending its connection, then exits 0', async () => {
    server = await startServe({ distDir: liveDir, tokens: [TOKEN] });
    // A slow client: the request line and half the headers, then a pause.
    const inFlight = await halfSentRequest(server.url, TOKEN);
    await new Promise((resolve) => setTimeout(resolve, 200));

    server.child.kill('SIGTERM');
    await until(() => server!.output().includes('SIGTERM: finishing in-flight requests'));
    await expect(getApi(server.url, '/api/trees', TOKEN)).rejects.toThrow();
    inFlight.finish();

    await inFlight.closed;
    const [response] = parseResponses(inFlight.received());
    expect(response?.status).toBe(200);
    // It ends its connection, so a kept-alive client neither sends more nor holds the exit back.
    expect(response?.headers.connection).toBe('close');
    expect(response?.body.equals(routeBytes(treesList, 'identity', undefined, liveDir))).toBe(true);
    expect(await server.exited).toBe(0);
  });
});

test('a build killed midway (SIGKILL) leaves the previous build intact; a reload keeps serving it whole', {
  timeout: 400_000,
}, async () => {
  const previous = readBuild(liveDir);
  const nextDir = join(workDir, 'next');
  await buildEditedApi(nextDir, workDir);
  server = await startServe({ distDir: liveDir, tokens: [TOKEN] });

  // The swap of `npm run build` killed while it copies the next build into its staging folder.
  await killBuildMidway(
    liveDir,
    `fs.cpSync(${JSON.stringify(join(nextDir, 'api'))}, staging + '/api', { recursive: true });`,
  );

  expect(readBuild(liveDir).manifest).toEqual(previous.manifest);
  expect(await reload(server)).toMatch(/^Reloaded/);
  expect(await differencesFrom(server.url, TOKEN, previous)).toEqual([]);
});
