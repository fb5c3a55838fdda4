// `npm run serve` behind a real nginx (Debian's) that terminates TLS, configured by
// docs/deploy.md's blocks (issue 55, findings 1 and the forwarded origin): with
// TRUST_PROXY_HEADER=forwarded, nginx appending its element to the client's Forwarded on the
// same header line (the documented block) and on a line of its own; and with X-Forwarded-For.
// A client's malformed Forwarded (an unclosed quote) never makes it count as another address, nor
// does a Host, X-Forwarded-Host or Forwarded that tries to close nginx's element and add one of
// its own (issue 62), and the Discord app's links are on the scheme and host nginx was reached at.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { discordKeys, type DiscordKeys } from '../support/discord.ts';
import { type RunningNginx, skipNginxTests, startNginx } from '../support/nginx.ts';
import { type RunningServeChild, startServe, until } from '../support/serve-child.ts';

const TOKEN = 'forwarded-proxy-token';
/** The limit: five a window of ten seconds. */
const LIMIT = { requests: 5, seconds: 10 };
/** The public name clients reach nginx by. */
const PUBLIC_HOST = 'data.example.org';
const TLS = join(projectDir, 'test/fixtures/tls');
const CA = readFileSync(join(TLS, 'loopback.crt'));

/** docs/deploy.md's ```nginx block that contains `marker`, proxying to `upstream`, on TLS with the test's key. */
function documentedBlock(marker: string, upstream: string): string {
  const deployDoc = readFileSync(join(projectDir, 'docs/deploy.md'), 'utf8');
  const block = [...deployDoc.matchAll(/```nginx\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((text) => text.includes(marker));
  if (!block) throw new Error(`docs/deploy.md has no nginx block with ${marker}`);
  if (!block.includes('listen 80;')) throw new Error('the nginx block no longer listens on port 80');
  return block
    .replace('http://127.0.0.1:4321', upstream)
    .replace(
      'listen 80;',
      `listen 443 ssl;\n    ssl_certificate ${join(TLS, 'loopback.crt')};\n` +
        `    ssl_certificate_key ${join(TLS, 'loopback.key')};`,
    );
}

/** The same-line Forwarded of the documented block, sent instead as nginx's own header line after the client's. */
function onItsOwnLine(block: string): string {
  const sameLine = 'proxy_set_header Forwarded "$http_forwarded, ';
  if (!block.includes(sameLine)) throw new Error(`the Forwarded block no longer has ${sameLine}`);
  return block.replace(sameLine, 'proxy_set_header Forwarded $http_forwarded;\n        proxy_set_header Forwarded "');
}

interface Answer {
  status: number;
  body: string;
}

/** `method` `path` through nginx (https, as PUBLIC_HOST) on a new connection from `from`, a loopback address. */
function send(
  nginx: RunningNginx,
  from: string,
  path: string,
  headers: Record<string, string>,
  { method = 'GET', body = '' } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port: nginx.port, path, method, localAddress: from, agent: false, ca: CA };
    // The TLS server name is the public one whatever Host the test sends (Node takes it from Host).
    const servername = PUBLIC_HOST;
    // The certificate is 127.0.0.1's, whatever Host names.
    const identity = {
      checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity('127.0.0.1', cert),
    };
    const sent = request(
      { ...options, ...identity, servername, headers: { Host: PUBLIC_HOST, ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A value that, written into an element unescaped, ends it and adds one naming `victim` on the right. */
const injection = (victim: string) => `x",for=${victim};h="y`;

/** The headers a client sends the injection in: the Host nginx reads, and what it may pass on. */
const ATTEMPTS = [{ header: 'Host' }, { header: 'X-Forwarded-Host' }, { header: 'Forwarded' }] as const;

const CONFIGS = [
  { name: 'Forwarded, appended on the same line', header: 'forwarded', block: (up: string) => forwardedBlock(up) },
  {
    name: 'Forwarded, on a line of its own',
    header: 'forwarded',
    block: (up: string) => onItsOwnLine(forwardedBlock(up)),
  },
  { name: 'X-Forwarded-For', header: 'x-forwarded-for', block: (up: string) => documentedBlock('$proxy_add_x', up) },
] as const;

function forwardedBlock(upstream: string): string {
  return documentedBlock('proxy_set_header Forwarded', upstream);
}

describe.skipIf(skipNginxTests()).each(CONFIGS.map((config, at) => ({ ...config, at })))(
  'behind nginx: $name',
  ({ header, block, at }) => {
    let server: RunningServeChild;
    let nginx: RunningNginx;
    let keys: DiscordKeys;
    /** Each configuration's clients from addresses of their own: 127.0.<at + 10>.x. */
    const address = (host: number) => `127.0.${at + 10}.${host}`;
    beforeAll(async () => {
      keys = await discordKeys();
      server = await startServe({
        tokens: [TOKEN],
        rateLimit: `${LIMIT.requests}/${LIMIT.seconds}s`,
        trustProxy: '127.0.0.1',
        trustProxyHeader: header,
        discordPublicKey: keys.publicKeyHex,
      });
      nginx = await startNginx(block(server.url));
    }, 120_000);
    afterAll(async () => {
      await nginx?.close();
      await server?.stop();
    });

    /** The clients of the access log's records at `path`, once it has `count` of them. */
    async function loggedClients(path: string, count: number): Promise<string[]> {
      const records = () =>
        server
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { path: string; client: string | null })
          .filter((record) => record.path === path);
      await until(() => records().length >= count, 30_000);
      return records().map(({ client }) => client ?? '(none)');
    }

    /** Tokenless requests from `from` with `headers(n)` until the first 429 (at most two windows' worth). */
    async function untilRefused(from: string, path: string, headers: (sent: number) => Record<string, string>) {
      const statuses: number[] = [];
      for (let sent = 0; sent <= 2 * LIMIT.requests + 1 && statuses.at(-1) !== 429; sent++)
        statuses.push((await send(nginx, from, path, { Authorization: 'Bearer wrong', ...headers(sent) })).status);
      return statuses;
    }

    /**
     * Tokenless requests from `from` with `headers` until the 429: each counted and logged as
     * `from`, the address nginx saw, and `named`, the address the headers try to name, never counted.
     */
    async function countedAsSeen(from: string, named: string, path: string, headers: Record<string, string>) {
      const statuses = await untilRefused(from, path, () => headers);
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
      expect(new Set(await loggedClients(path, statuses.length))).toEqual(new Set([from]));
      // The address named was never counted: its own first request is a 401, not a 429.
      expect((await send(nginx, named, path, { Authorization: 'Bearer wrong' })).status).toBe(401);
    }

    test.skipIf(header !== 'forwarded')(
      'a client\'s for=127.0.0.12;x=" is counted and logged as the address nginx saw, never as 127.0.0.12',
      () =>
        countedAsSeen(address(44), address(12), '/api/trees?search=unclosed-quote', {
          Forwarded: `for=${address(12)};x="`,
        }),
    );

    // Issue 62, finding 2: nginx takes `"`, `,`, `;` and `=` in a Host, so a block that writes the
    // Host into its element unescaped lets the client end the element and add one of its own.
    test.each(ATTEMPTS.map((attempt, index) => ({ ...attempt, index })))(
      "a client's $header closing the element with for=<another> is counted and logged as the address nginx saw",
      ({ header: sent, index }) =>
        countedAsSeen(address(50 + index), address(20 + index), `/api/trees?search=element-injection-${index}`, {
          [sent]: injection(address(20 + index)),
        }),
    );

    test.skipIf(header !== 'forwarded')('a new for="evil<N> on every request does not escape the limit', async () => {
      const path = '/api/trees?search=evil-names';
      const statuses = await untilRefused(address(45), path, (sent) => ({ Forwarded: `for="evil${sent}` }));
      expect(statuses.at(-1)).toBe(429);
      expect(new Set(await loggedClients(path, statuses.length))).toEqual(new Set([address(45)]));
    });

    test("a Discord embed's link and card are on nginx's scheme and host: https://data.example.org/...", async () => {
      const body = JSON.stringify({
        type: 2,
        id: '1',
        application_id: '2',
        token: 't',
        data: { id: '3', name: 'tree', type: 1, options: [{ name: 'name', type: 3, value: 'Oak Tree' }] },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = await keys.sign(timestamp + body);
      const answer = await send(
        nginx,
        address(46),
        '/discord/interactions',
        {
          'Content-Type': 'application/json',
          'X-Signature-Ed25519': signature,
          'X-Signature-Timestamp': timestamp,
          // A client's own claims, which only a trusted hop's may override.
          Forwarded: 'for=192.0.2.1;proto=http;host=evil.example',
          'X-Forwarded-Proto': 'http',
          'X-Forwarded-Host': 'evil.example',
        },
        { method: 'POST', body },
      );
      expect(answer.status).toBe(200);
      const message = JSON.parse(answer.body) as { data?: { embeds?: { url?: string; image?: { url: string } }[] } };
      expect(message.data?.embeds?.[0]?.url).toBe(`https://${PUBLIC_HOST}/trees/oak-tree/`);
      expect(message.data?.embeds?.[0]?.image?.url).toBe(`https://${PUBLIC_HOST}/cards/trees/oak-tree.png`);
    });
  },
);
