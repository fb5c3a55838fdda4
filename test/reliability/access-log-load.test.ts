// The access log under ordinary load (issue 62): name searches whose query lengths vary, over
// several connections to `npm run serve` with WORKERS=2. Lines of varying length fill the log's
// 4096-byte chunks to every byte count, the last byte too; every answered request has its line.
import { Agent, request } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { type RunningServeChild, startServe } from '../support/serve-child.ts';

const TOKEN = 'access-log-load-token';
const CONNECTIONS = 8;
/** Query lengths 1 to LONGEST characters, each sent ROUNDS times. */
const LONGEST = 2000;
const ROUNDS = 2;
let running: RunningServeChild | undefined;

afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
});

/** A query of `length` letters (nothing a target escapes). */
const queryOf = (length: number) =>
  Array.from({ length }, (_, index) => String.fromCharCode(97 + (index % 26))).join('');

/** GETs `path` on `agent`'s connections; the status once the whole answer is read. */
function getStatus(agent: Agent, url: URL, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(
      { agent, host: url.hostname, port: url.port, path, headers: { Authorization: `Bearer ${TOKEN}` } },
      (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode ?? 0));
        answer.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

test('searches of every query length from 1 to 2,000 characters, 8 connections: each answer has its line', async () => {
  const served = await startServe({ tokens: [TOKEN], processes: 2 });
  running = served;
  const url = new URL(served.url);
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const lengths = Array.from({ length: ROUNDS * LONGEST }, (_, index) => (index % LONGEST) + 1);
  const queue = lengths.map((length) => `/api/trees?search=${queryOf(length)}`);
  const answered: string[] = [];
  // CONNECTIONS clients, each taking the next search once its answer is read.
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift())
        // Answered: a record, a suggestion or the kind's not-found (the query names none), all logged.
        if ((await getStatus(agent, url, path)) > 0) answered.push(path);
    }),
  );
  agent.destroy();
  expect(answered).toHaveLength(lengths.length);
  expect(await served.stop('SIGTERM')).toBe(0);

  const output = served.output();
  expect(output).not.toContain('Access log');
  const logged = output
    .split('\n')
    .filter((line) => line.startsWith('{"time"'))
    .map((line) => (JSON.parse(line) as { path: string }).path);
  expect(logged.sort()).toEqual(answered.sort());
}, 180_000);
