// The rate limit and health rules of the edge core (docs/api-contract.md, "Rate limits" and
// "Health"), in-process over the built dist/, with the local server's window count on a
// clock the test moves. The runtimes' own tests (test/server, test/worker) check the same
// rules over HTTP.
import { mcpMount } from '../../src/apps/mcp/mount.ts';
import { mountAt } from '../../src/edge/apps.ts';
import { describe, expect, test } from 'vitest';
import { healthBody } from '../../src/contract/health.ts';
import type { RateLimit } from '../../src/schema/environment.ts';
import {
  type CountedResponse,
  createEdge,
  type EdgeDecision,
  type RateCount,
  type CountedBy,
} from '../../src/edge/core.ts';
import { rememberDecisions } from '../../src/edge/remembered.ts';
import { configuredTokens } from '../../src/edge/tokens.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { WindowCounter } from '../../src/server/rate-counter.ts';
import { distDir } from '../support/runtimes.ts';

const store = await loadBodyStore(distDir);
const tokens = await configuredTokens({ API_TOKENS: 'first,reader:second' });
const LIMIT: RateLimit = { requests: 3, seconds: 10 };

/**
 * A core under LIMIT whose count runs on a clock the test sets; every count is recorded. `count`
 * is that count, for a remembered-decisions wrapper to count with too. Its address table holds
 * `maxAddresses` per window.
 */
function limitedCore(
  countWith?: (countedBy: CountedBy, key: string) => RateCount,
  limit = LIMIT,
  maxAddresses?: number,
) {
  let now = 1_000_000_000_000; // the start of a 10 s (and of a 60 s) window
  const counters = { token: new WindowCounter(limit), address: new WindowCounter(limit, maxAddresses) };
  const counted: [CountedBy, string][] = [];
  const count = (countedBy: CountedBy, key: string) => {
    counted.push([countedBy, key]);
    return countWith ? countWith(countedBy, key) : counters[countedBy].hit(key, now);
  };
  const core = createEdge({
    index: store.index,
    tokenDigests: tokens.map(({ digest }) => digest),
    tokenNames: tokens.map(({ name }) => name),
    rateLimit: { limit, count },
  });
  return {
    core,
    count,
    counted,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

type Request = { method?: string; path?: string; token?: string | null; authorization?: string; client?: string };
const ask = (core: (request: never) => Promise<EdgeDecision>, request: Request = {}) => {
  const { method = 'GET', path = '/api/trees', token = 'first', client = '192.0.2.1' } = request;
  const authorization = request.authorization ?? (token === null ? undefined : `Bearer ${token}`);
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  return (core as (request: object) => Promise<EdgeDecision>)({
    method,
    pathname: path,
    query: '',
    header: (name: string) => headers[name] ?? null,
    client,
    mount: mountAt(path, [mcpMount]),
  });
};

/** A counted decision, its status and every header it is sent with. */
function sent(decision: EdgeDecision): { status: number; headers: Record<string, string>; text?: string } {
  if (decision.type !== 'counted') throw new Error(`expected a counted answer, got ${decision.type}`);
  const { answer, rateLimit } = decision as CountedResponse;
  if (answer.type === 'app') throw new Error(`expected an answer of the API, got the hand-off to ${answer.app}`);
  const body = answer.body;
  return {
    status: answer.status,
    headers: { ...answer.headers, ...(rateLimit === undefined ? {} : { RateLimit: rateLimit }) },
    ...(body && 'text' in body ? { text: body.text } : {}),
  };
}

/** The same request, again and again: a remembered-decisions wrapper's case. */
const repeated = {
  method: 'GET',
  pathname: '/api/trees',
  query: '',
  header: () => 'Bearer first',
  client: '192.0.2.9',
  mount: undefined,
};

const TOO_MANY = 'Too many requests with this API token: the limit is 3 per 10 seconds. Try again in 10 seconds.';

describe('rate limits', () => {
  test('the (n+1)th request of a window is a 429: Retry-After, RateLimit r=0, error headers, the body', async () => {
    const { core } = limitedCore();
    for (let request = 0; request < LIMIT.requests; request++) expect(sent(await ask(core)).status).toBe(200);
    const refused = sent(await ask(core));
    expect(refused).toEqual({
      status: 429,
      headers: expect.objectContaining({
        'Retry-After': '10',
        RateLimit: '"token";r=0;t=10',
        'RateLimit-Policy': '"token";q=3;w=10',
        'Access-Control-Allow-Origin': '*',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        'Content-Type': 'application/json; charset=utf-8',
        'X-Data-Version': store.manifest.version,
      }),
      text: JSON.stringify({ error: true, message: TOO_MANY }),
    });
  });

  test('every /api/ answer under a limit carries RateLimit-Policy and RateLimit with what is left', async () => {
    const { core, advance } = limitedCore();
    advance(2_500);
    expect(sent(await ask(core)).headers).toMatchObject({
      'RateLimit-Policy': '"token";q=3;w=10',
      RateLimit: '"token";r=2;t=8',
    });
    expect(sent(await ask(core, { path: '/api/nowhere' })).headers).toMatchObject({ RateLimit: '"token";r=1;t=8' });
  });

  test('/mcp is counted as /api/ is: handed over with RateLimit-Policy and what is left, then the 429', async () => {
    const { core } = limitedCore();
    for (let request = 0; request < LIMIT.requests; request++) {
      const decision = await ask(core, { method: 'POST', path: '/mcp' });
      expect(decision).toMatchObject({
        type: 'counted',
        answer: { type: 'app', app: 'mcp', headers: { 'RateLimit-Policy': '"token";q=3;w=10' } },
        rateLimit: `"token";r=${LIMIT.requests - request - 1};t=10`,
      });
    }
    expect(sent(await ask(core, { method: 'POST', path: '/mcp' })).status).toBe(429);
    // One count for both: the API is past the limit too.
    expect(sent(await ask(core)).status).toBe(429);
  });

  test('another token is unaffected', async () => {
    const { core } = limitedCore();
    for (let request = 0; request <= LIMIT.requests; request++) await ask(core);
    expect(sent(await ask(core)).status).toBe(429);
    expect(sent(await ask(core, { token: 'second' })).status).toBe(200);
  });

  test('the next window restores access', async () => {
    const { core, advance } = limitedCore();
    for (let request = 0; request <= LIMIT.requests; request++) await ask(core);
    expect(sent(await ask(core)).status).toBe(429);
    advance(10_000);
    expect(sent(await ask(core)).status).toBe(200);
  });

  test('OPTIONS preflights are not counted', async () => {
    const { core, counted } = limitedCore();
    for (let request = 0; request < 10; request++)
      expect(await ask(core, { method: 'OPTIONS', token: null })).toMatchObject({ type: 'respond', status: 204 });
    expect(counted).toEqual([]);
  });

  test('a valid token counts against its digest alone, from its first request on', async () => {
    const { core, counted } = limitedCore();
    await ask(core);
    await ask(core);
    const digest = Buffer.from(tokens[0]?.digest ?? []).toString('hex');
    expect(counted).toEqual([
      ['token', digest],
      ['token', digest],
    ]);
  });

  test('a valid token counts against its digest alone however its header is spelled', async () => {
    const { core, counted } = limitedCore(() => ({ allowed: true }));
    const spellings = ['Bearer first', 'bearer first', 'BEARER   first', '  Bearer\tfirst  ', 'first', 'bEaReR first'];
    for (const authorization of spellings) expect(sent(await ask(core, { authorization })).status).toBe(200);
    const digest = Buffer.from(tokens[0]?.digest ?? []).toString('hex');
    expect(counted).toEqual(spellings.map(() => ['token', digest]));
    expect(spellings.map((authorization) => core.tokenName(authorization))).toEqual(
      spellings.map(() => digest.slice(0, 8)),
    );
  });

  test("one client's spellings of its token cannot make another's first request count by address", async () => {
    // API_RATE_LIMIT=30/60s; a tenant, a stranger and the next tenant share an address (NAT).
    const { core, counted, advance } = limitedCore(undefined, { requests: 30, seconds: 60 });
    const spellings = Array.from({ length: 70 }, (_, n) => `${n % 2 ? 'bearer' : 'BEARER'}${' '.repeat(n + 1)}first`);
    for (const [n, authorization] of spellings.entries()) {
      if (n % 25 === 0) advance(60_000);
      expect(sent(await ask(core, { authorization })).status).toBe(200);
    }
    advance(60_000);
    const stranger = [];
    for (let n = 0; n < 35; n++) stranger.push(sent(await ask(core, { token: `wrong-${n}` })).status);
    expect(stranger.slice(29)).toEqual([401, 429, 429, 429, 429, 429]);
    expect(sent(await ask(core, { token: 'second' })).status).toBe(200);
    const second = Buffer.from(tokens[1]?.digest ?? []).toString('hex');
    expect(counted.at(-1)).toEqual(['token', second]);
    expect(core.tokenName('Bearer second')).toBe('reader');
  });

  test('missing and wrong tokens count against their client address; past the limit they get the 429', async () => {
    const { core } = limitedCore();
    for (const token of ['wrong', null, 'wrong']) expect(sent(await ask(core, { token })).status).toBe(401);
    expect(sent(await ask(core, { token: 'wrong' }))).toMatchObject({ status: 429, headers: { 'Retry-After': '10' } });
    // Another address is its own count.
    expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.2' })).status).toBe(401);
  });

  test('a 429 to a request counted by its address says "from this address", not "with this API token"', async () => {
    const { core } = limitedCore();
    for (let request = 0; request < LIMIT.requests; request++) await ask(core, { token: 'wrong' });
    const message = 'Too many requests from this address: the limit is 3 per 10 seconds. Try again in 10 seconds.';
    for (const token of ['wrong', null])
      expect(sent(await ask(core, { token }))).toMatchObject({
        status: 429,
        text: JSON.stringify({ error: true, message }),
      });
    // A valid token's own 429 still names the token.
    for (let request = 0; request < LIMIT.requests; request++) await ask(core, { token: 'first' });
    expect(sent(await ask(core, { token: 'first' })).text).toBe(JSON.stringify({ error: true, message: TOO_MANY }));
  });

  test("past the address's limit missing and wrong tokens get the 429; a valid token counts on its own", async () => {
    const { core } = limitedCore();
    for (let request = 0; request <= LIMIT.requests; request++) await ask(core, { token: 'wrong' });
    expect(sent(await ask(core, { token: 'other-wrong' })).status).toBe(429);
    expect(sent(await ask(core, { token: null })).status).toBe(429);
    // Its first request at this address: verified before it is counted, so the address is not its count.
    expect(sent(await ask(core, { token: 'second' })).status).toBe(200);
  });

  test('past a full address table a valid token from a new address is served, counted against its digest', async () => {
    const { core, counted } = limitedCore(undefined, LIMIT, 2);
    await ask(core, { token: 'wrong', client: '192.0.2.1' });
    await ask(core, { token: 'wrong', client: '192.0.2.2' });
    expect(sent(await ask(core, { token: 'first', client: '192.0.2.3' })).status).toBe(200);
    for (let request = 1; request < LIMIT.requests; request++)
      expect(sent(await ask(core, { token: 'first', client: '192.0.2.3' })).status).toBe(200);
    // Its token's count still holds it to the limit.
    expect(sent(await ask(core, { token: 'first', client: '192.0.2.3' })).status).toBe(429);
    expect(counted.filter(([countedBy]) => countedBy === 'token')).toHaveLength(LIMIT.requests + 1);
  });

  test('past a full address table a missing or wrong token from a new address gets its 401, uncounted', async () => {
    const { core } = limitedCore(undefined, LIMIT, 2);
    await ask(core, { token: 'wrong', client: '192.0.2.1' });
    await ask(core, { token: 'wrong', client: '192.0.2.2' });
    for (let request = 0; request <= LIMIT.requests; request++) {
      expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.3' })).status).toBe(401);
      expect(sent(await ask(core, { token: null, client: '192.0.2.3' })).status).toBe(401);
    }
    // An address the table holds is still counted: past its limit, the 429.
    for (let request = 1; request < LIMIT.requests; request++) await ask(core, { token: 'wrong', client: '192.0.2.1' });
    expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.1' })).status).toBe(429);
  });

  test('the addresses of one IPv6 /64 are one count, in any spelling; another /64 has its own', async () => {
    const { core, counted } = limitedCore(undefined, { requests: 2, seconds: 60 });
    expect(sent(await ask(core, { token: 'wrong', client: '2001:db8:1:2::1' })).status).toBe(401);
    expect(sent(await ask(core, { token: 'wrong', client: '2001:DB8:1:2:ffff::9%eth0' })).status).toBe(401);
    expect(sent(await ask(core, { token: 'wrong', client: '2001:db8:1:2:abcd:0:0:7' })).status).toBe(429);
    expect(sent(await ask(core, { token: 'wrong', client: '2001:db8:1:3::1' })).status).toBe(401);
    expect(counted.map(([, key]) => key)).toEqual([
      '2001:db8:1:2::/64',
      '2001:db8:1:2::/64',
      '2001:db8:1:2::/64',
      '2001:db8:1:3::/64',
    ]);
  });

  test('an IPv4 address is one count however the socket gives it (IPv4-mapped on a dual-stack one)', async () => {
    const { core } = limitedCore(undefined, { requests: 1, seconds: 60 });
    expect(sent(await ask(core, { token: 'wrong', client: '::ffff:192.0.2.1' })).status).toBe(401);
    expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.1' })).status).toBe(429);
    expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.2' })).status).toBe(401);
  });

  test('one host rotating through its /64 cannot fill the address table', async () => {
    const { core } = limitedCore(undefined, { requests: 1, seconds: 60 }, 2);
    for (let index = 0; index < 10; index++) await ask(core, { token: 'wrong', client: `2001:db8:1:2::${index + 1}` });
    // The table holds one key: a new address is still counted, and refused past its limit.
    expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.1' })).status).toBe(401);
    expect(sent(await ask(core, { token: 'wrong', client: '192.0.2.1' })).status).toBe(429);
  });

  test('a runtime that knows only allowed or not (the Worker): no RateLimit until the 429, then r=0', async () => {
    let calls = 0;
    const { core } = limitedCore(() => ({ allowed: ++calls <= 1 }));
    const allowed = sent(await ask(core));
    expect(allowed.headers).toMatchObject({ 'RateLimit-Policy': '"token";q=3;w=10' });
    expect(allowed.headers).not.toHaveProperty('RateLimit');
    expect(sent(await ask(core)).headers).toMatchObject({ 'Retry-After': '10', RateLimit: '"token";r=0;t=10' });
  });

  test('a count that knows only part of its state gives no RateLimit: a header never states a guess', async () => {
    for (const partial of [
      { allowed: true, remaining: 2 },
      { allowed: true, resetSeconds: 5 },
    ]) {
      const { core } = limitedCore(() => partial);
      expect({ partial, headers: sent(await ask(core)).headers }).toEqual({
        partial,
        headers: expect.not.objectContaining({ RateLimit: expect.anything() }),
      });
    }
  });

  test('a remembered answer that is not counted (health, a site path) is given back without counting', async () => {
    const { core, count, counted } = limitedCore();
    const edge = rememberDecisions(core, count);
    for (const pathname of ['/healthz', '/trees/oak-tree/']) {
      const asked = { ...repeated, pathname };
      const decided = await edge.decide(asked);
      expect(edge.decide(asked)).toBe(decided);
    }
    expect(counted).toEqual([]);
  });

  test('a request without a valid token is counted by its address every time, also through the wrapper', async () => {
    const { core, count, counted } = limitedCore();
    const edge = rememberDecisions(core, count);
    const anonymous = { ...repeated, header: () => null };
    const statuses: number[] = [];
    for (let round = 0; round <= LIMIT.requests; round++) statuses.push(sent(await edge.decide(anonymous)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(counted).toEqual(Array.from({ length: LIMIT.requests + 1 }, () => ['address', '192.0.2.9']));
  });

  test("with a count that answers later (another process's), the wrapper never keeps a counted answer", async () => {
    const { core, counted } = limitedCore();
    const edge = rememberDecisions(core);
    for (let round = 0; round < LIMIT.requests; round++) {
      const decision = edge.decide(repeated);
      expect(decision).toBeInstanceOf(Promise);
      expect(sent(await decision).status).toBe(200);
    }
    expect(sent(await edge.decide(repeated)).status).toBe(429);
    expect(counted.filter(([countedBy]) => countedBy === 'token')).toHaveLength(LIMIT.requests + 1);
  });

  test('a remembered answer is counted every time: the (n+1)th request of a window is a 429', async () => {
    const { core, count, counted } = limitedCore();
    const edge = rememberDecisions(core, count);
    const first = await edge.decide(repeated);
    const known: EdgeDecision[] = [];
    for (let round = 1; round < LIMIT.requests; round++) {
      const decision = edge.decide(repeated);
      // Answered at once, without a turn through the core.
      if (decision instanceof Promise) throw new Error('a repeat of a counted answer was not remembered');
      known.push(decision);
    }
    expect(known.map((decision) => sent(decision).status)).toEqual([200, 200]);
    expect(known.every((decision) => (decision as CountedResponse).answer === (first as CountedResponse).answer)).toBe(
      true,
    );
    expect(sent(await edge.decide(repeated))).toMatchObject({
      status: 429,
      headers: { 'Retry-After': '10', RateLimit: '"token";r=0;t=10' },
    });
    const digest = Buffer.from(tokens[0]?.digest ?? []).toString('hex');
    // The refused request was counted once, by the wrapper: the core made its 429 from that count.
    expect(counted).toEqual(Array.from({ length: 4 }, () => ['token', digest]));
  });

  test("RateLimit's r= goes down on remembered requests; a new window's state is each request's own", async () => {
    const { core, count, advance } = limitedCore();
    const edge = rememberDecisions(core, count);
    const states = async () => sent(await edge.decide(repeated)).headers['RateLimit'];
    advance(1_000);
    expect([await states(), await states(), await states()]).toEqual([
      '"token";r=2;t=9',
      '"token";r=1;t=9',
      '"token";r=0;t=9',
    ]);
    expect(sent(await edge.decide(repeated)).status).toBe(429);
    advance(9_500);
    expect([await states(), await states()]).toEqual(['"token";r=2;t=10', '"token";r=1;t=10']);
  });

  test('only a verified token with an answer that is not a 429 names the key its repeats count under', async () => {
    const { core } = limitedCore();
    const digest = Buffer.from(tokens[0]?.digest ?? []).toString('hex');
    expect(await ask(core)).toMatchObject({ type: 'counted', tokenKey: digest });
    expect(await ask(core, { path: '/api/nowhere' })).toMatchObject({ tokenKey: digest });
    expect(await ask(core, { token: 'wrong' })).toMatchObject({ type: 'counted', tokenKey: undefined });
    expect(await ask(core, { token: null })).toMatchObject({ type: 'counted', tokenKey: undefined });
    expect(await ask(core)).toMatchObject({ answer: { status: 200 }, tokenKey: digest });
    expect(await ask(core)).toMatchObject({ answer: { status: 429 }, tokenKey: undefined });
  });

  test('every valid token names the key its repeats count under, however many tokens are configured', async () => {
    const many = await configuredTokens({ API_TOKENS: Array.from({ length: 300 }, (_, n) => `token-${n}`).join(',') });
    const counted: string[] = [];
    const core = createEdge({
      index: store.index,
      tokenDigests: many.map(({ digest }) => digest),
      rateLimit: {
        limit: LIMIT,
        count: (countedBy) => {
          counted.push(countedBy);
          return { allowed: true, remaining: 1, resetSeconds: 10 };
        },
      },
    });
    // Each token in several spellings: more values than the core keeps as sent.
    for (const scheme of ['Bearer ', 'bearer  ', ''])
      for (const [n, { digest }] of many.entries()) {
        const decision = (await ask(core, { authorization: `${scheme}token-${n}` })) as CountedResponse;
        expect(decision.tokenKey).toBe(Buffer.from(digest).toString('hex'));
      }
    expect(new Set(counted)).toEqual(new Set(['token']));
  });

  test('a core given no token names names each token by the first 8 hex digits of its digest', async () => {
    const core = createEdge({ index: store.index, tokenDigests: tokens.map(({ digest }) => digest) });
    await ask(core, { token: 'first' });
    await ask(core, { token: 'second' });
    const prefixes = tokens.map(({ digest }) => Buffer.from(digest).toString('hex').slice(0, 8));
    expect([core.tokenName('Bearer first'), core.tokenName('Bearer second')]).toEqual(prefixes);
  });

  test('the name of a token that passed: its own, or the first 8 hex digits of its digest', async () => {
    const { core } = limitedCore();
    await ask(core, { token: 'first' });
    await ask(core, { token: 'second' });
    expect(core.tokenName('Bearer first')).toBe(
      Buffer.from(tokens[0]?.digest ?? [])
        .toString('hex')
        .slice(0, 8),
    );
    expect(core.tokenName('Bearer second')).toBe('reader');
    expect(core.tokenName('Bearer wrong')).toBeNull();
  });
});

describe('health', () => {
  const unlimited = createEdge({ index: store.index, tokenDigests: [] });

  test('POST /healthz is refused as on any site path: 405 with Allow: GET, HEAD', async () => {
    expect(await ask(unlimited, { method: 'POST', path: '/healthz', token: null })).toMatchObject({
      type: 'respond',
      status: 405,
      headers: expect.objectContaining({ Allow: 'GET, HEAD' }),
    });
  });

  test('GET /healthz, no token: 200, Cache-Control no-store, the status and data version', async () => {
    const decision = await ask(unlimited, { path: '/healthz', token: null });
    expect(decision).toMatchObject({
      type: 'respond',
      status: 200,
      headers: expect.objectContaining({
        'Cache-Control': 'no-store',
        'Content-Type': 'application/json; charset=utf-8',
      }),
      body: { text: healthBody(store.manifest.version) },
      omitBody: false,
    });
    expect(JSON.parse(healthBody('v1'))).toEqual({ status: 'ok', dataVersion: 'v1' });
  });

  test('HEAD /healthz: the same headers, no body', async () => {
    expect(await ask(unlimited, { method: 'HEAD', path: '/healthz', token: null })).toMatchObject({
      status: 200,
      omitBody: true,
    });
  });

  test('/healthz is never counted under a limit', async () => {
    const { core, counted } = limitedCore();
    for (let request = 0; request < 5; request++)
      expect(await ask(core, { path: '/healthz', token: null })).toMatchObject({ type: 'respond', status: 200 });
    expect(counted).toEqual([]);
  });

  test('answers outside /api/ (health, a site 405, a spelled-out API path) carry no RateLimit-Policy', async () => {
    const { core } = limitedCore();
    const outside = [
      { path: '/healthz', token: null },
      { method: 'POST', path: '/trees/oak-tree/' },
      { path: '/%61pi/trees/index.json' },
    ];
    for (const request of outside) {
      const decision = await ask(core, request);
      if (decision.type !== 'respond') throw new Error(`${request.path}: expected an answer, got ${decision.type}`);
      expect(Object.keys(decision.headers)).not.toContain('RateLimit-Policy');
    }
    expect(sent(await ask(core, { path: '/api/nowhere' })).headers).toHaveProperty('RateLimit-Policy');
  });
});
