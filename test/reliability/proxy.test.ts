// `npm run serve` behind a real nginx, configured by docs/deploy.md's own block, with
// TRUST_PROXY naming nginx (docs/api-contract.md, "Rate limits"): each client behind the proxy
// is its own address to the rate limit and in the access log, and a spoofed X-Forwarded-For,
// sent through nginx or straight to the server from a peer it does not trust, changes nothing.
// The clients are told apart by the loopback address they connect from (127.0.0.2, .3, ...).
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { type RunningNginx, skipNginxTests, startNginx } from '../support/nginx.ts';
import { type RunningServeChild, startServe, until } from '../support/serve-child.ts';

const TOKEN = 'proxy-test-token';
/** Three a window of 60 s: a short burst stays in one window nearly always, and the rules hold across two. */
const LIMIT = { requests: 3, seconds: 60 };
/** Where nginx connects from: the one proxy the server trusts. */
const NGINX_ADDRESS = '127.0.0.1';

/** The first ```nginx block of docs/deploy.md: what an operator copies. */
function documentedNginxBlock(upstream: string): string {
  const deployDoc = readFileSync(join(projectDir, 'docs/deploy.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(deployDoc)?.[1];
  if (!block) throw new Error('docs/deploy.md has no ```nginx block');
  if (!block.includes('http://127.0.0.1:4321')) throw new Error('the nginx block no longer proxies to 127.0.0.1:4321');
  return block.replace('http://127.0.0.1:4321', upstream);
}

interface Answer {
  status: number;
  message: string;
}

/** GET `path` at `origin` on a new connection from `from` (a loopback address), with `headers`. */
function getFrom(from: string, origin: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path, localAddress: from, agent: false, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, message: (JSON.parse(body) as { message: string }).message }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

/**
 * Requests without a valid token from `from` until the first 429 (at most two windows' worth);
 * `headers` may be each request's own. The answers.
 */
async function untilRefused(
  from: string,
  origin: string,
  path: string,
  headers: (sent: number) => Record<string, string> = () => ({}),
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let sent = 0; sent <= 2 * LIMIT.requests + 1; sent++) {
    const answer = await getFrom(from, origin, path, { Authorization: 'Bearer not-a-token', ...headers(sent) });
    answers.push(answer);
    if (answer.status === 429) break;
  }
  return answers;
}

const refusedAtLast = (answers: Answer[]) => {
  expect(answers.at(-1)?.status).toBe(429);
  expect(answers.slice(0, -1).every((answer) => answer.status === 401)).toBe(true);
};

describe.skipIf(skipNginxTests())(`npm run serve behind nginx, TRUST_PROXY=${NGINX_ADDRESS}`, () => {
  let server: RunningServeChild;
  let nginx: RunningNginx;
  beforeAll(async () => {
    server = await startServe({
      tokens: [TOKEN],
      rateLimit: `${LIMIT.requests}/${LIMIT.seconds}s`,
      trustProxy: NGINX_ADDRESS,
    });
    nginx = await startNginx(documentedNginxBlock(server.url));
  }, 120_000);
  afterAll(async () => {
    await nginx?.close();
    await server?.stop();
  });

  /** The access log's records so far whose path is `path`. */
  const loggedAt = (path: string) =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { path: string; client: string | null; status: number })
      .filter((record) => record.path === path);

  /** Waits until the log has `count` records at `path` (the log's thread writes them a moment later); those. */
  async function logged(path: string, count: number) {
    await until(() => loggedAt(path).length >= count, 30_000);
    return loggedAt(path);
  }

  test('the server says on start-up where it takes client addresses from', () => {
    expect(server.output()).toContain(
      'Client addresses: as the proxies TRUST_PROXY names forward them in X-Forwarded-For.',
    );
  });

  test('each client behind nginx has its own count: one client past the limit locks no other out', async () => {
    const path = '/api/trees?search=own-counts';
    const first = await untilRefused('127.0.0.2', nginx.url, path);
    refusedAtLast(first);
    expect(first.at(-1)?.message).toMatch(/^Too many requests from this address: /);
    // Without TRUST_PROXY both are nginx's one address, and this first request would be the 429.
    const second = await untilRefused('127.0.0.3', nginx.url, path);
    expect(second[0]?.status).toBe(401);
    refusedAtLast(second);
  });

  test("the access log's client is the client behind nginx, never nginx", async () => {
    const path = '/api/trees?search=logged-clients';
    const answers = await Promise.all(
      ['127.0.0.4', '127.0.0.5', '127.0.0.5'].map((from) =>
        getFrom(from, nginx.url, path, { Authorization: `Bearer ${TOKEN}` }),
      ),
    );
    expect(answers.map(({ status }) => status)).toEqual([404, 404, 404]);
    const clients = (await logged(path, 3)).map(({ client }) => client).sort();
    expect(clients).toEqual(['127.0.0.4', '127.0.0.5', '127.0.0.5']);
  });

  test('a spoofed X-Forwarded-For sent through nginx changes nothing: the client is what nginx saw', async () => {
    const path = '/api/trees?search=spoofed-through-nginx';
    // A new made-up address on every request: were any believed, none would reach the limit.
    const answers = await untilRefused('127.0.0.6', nginx.url, path, (sent) => ({
      'X-Forwarded-For': `198.51.100.${sent + 10}`,
      Forwarded: `for=198.51.100.${sent + 10}`,
    }));
    refusedAtLast(answers);
    const clients = new Set((await logged(path, answers.length)).map(({ client }) => client));
    expect(clients).toEqual(new Set(['127.0.0.6']));
  });

  test('a spoofed X-Forwarded-For sent straight to the server by a peer not trusted changes nothing', async () => {
    const path = '/api/trees?search=spoofed-straight';
    const answers = await untilRefused('127.0.0.7', server.url, path, (sent) => ({
      'X-Forwarded-For': `198.51.100.${sent + 10}, ${NGINX_ADDRESS}`,
    }));
    refusedAtLast(answers);
    const clients = new Set((await logged(path, answers.length)).map(({ client }) => client));
    expect(clients).toEqual(new Set(['127.0.0.7']));
  });
});
