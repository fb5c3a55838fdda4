// The edge's bounded memos (src/edge/memo.ts) and what the core remembers with them: the
// same request gets the same answer, a verified token is remembered only by the core that
// verified it, and nothing grows past its limit.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createEdge, type EdgeRequest } from '../../src/edge/core.ts';
import { boundedMemo } from '../../src/edge/memo.ts';
import { tokenDigests } from '../../src/edge/tokens.ts';
import type { TokenSettings } from '../../src/schema/environment.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { nameRoute } from '../../src/contract/paths.ts';
import { routeBody } from '../support/dist-routes.ts';
import { distDir } from '../support/runtimes.ts';

describe('boundedMemo', () => {
  test('computes a key once and then remembers it', () => {
    const memo = boundedMemo<string, number>(10);
    let computed = 0;
    const length = (key: string) => {
      computed++;
      return key.length;
    };
    expect([memo.get('abc', length), memo.get('abc', length), memo.get('de', length)]).toEqual([3, 3, 2]);
    expect(computed).toBe(2);
  });

  test('remembers undefined as a value', () => {
    const memo = boundedMemo<string, undefined>(10);
    let computed = 0;
    memo.get('x', () => void computed++);
    memo.get('x', () => void computed++);
    expect(computed).toBe(1);
  });

  test('find gives a remembered value and nothing for a key it does not hold; it computes nothing', () => {
    const memo = boundedMemo<string, number>(10);
    memo.get('a', () => 1);
    expect([memo.find('a'), memo.find('b'), memo.size]).toEqual([1, undefined, 1]);
  });

  test('set remembers a value, replaces one without growing, and lets the oldest go past the limit', () => {
    const memo = boundedMemo<string, number>(2);
    memo.set('a', 1);
    memo.set('a', 2);
    expect([memo.find('a'), memo.size]).toEqual([2, 1]);
    memo.set('b', 3);
    memo.set('c', 4);
    expect([memo.find('a'), memo.find('b'), memo.find('c'), memo.size]).toEqual([undefined, 3, 4, 2]);
  });

  test('holds at most its limit, letting the oldest go first', () => {
    const memo = boundedMemo<number, number>(3);
    for (const key of [1, 2, 3, 4]) memo.get(key, (value) => value * 10);
    expect(memo.size).toBe(3);
    const recomputed: number[] = [];
    const track = (key: number) => {
      recomputed.push(key);
      return key * 10;
    };
    memo.get(4, track);
    memo.get(2, track);
    expect(recomputed).toEqual([]);
    memo.get(1, track);
    expect(recomputed).toEqual([1]);
  });

  test('a key in use stays remembered through a flood of new keys; the ones not used since go first', () => {
    const limit = 64;
    const memo = boundedMemo<string, string>(limit);
    const computed: string[] = [];
    const compute = (key: string) => {
      computed.push(key);
      return key.toUpperCase();
    };
    memo.get('hot', compute);
    memo.get('cold', compute);
    // Ten limits' worth of keys never seen again, the hot key used once in every half-limit of them.
    for (let flood = 0; flood < 10 * limit; flood++) {
      memo.get(`unique-${flood}`, compute);
      if (flood % (limit / 2) === 0) expect(memo.get('hot', compute)).toBe('HOT');
    }
    expect(computed.filter((key) => key === 'hot')).toEqual(['hot']);
    expect(memo.find('cold')).toBeUndefined();
    expect(memo.size).toBe(limit);
  });

  test('find is a use as get is: a key found keeps its place through a flood', () => {
    const memo = boundedMemo<number, number>(16);
    memo.set(-1, -1);
    for (let flood = 0; flood < 160; flood++) {
      memo.set(flood, flood);
      if (flood % 8 === 0) expect(memo.find(-1)).toBe(-1);
    }
    expect(memo.find(-1)).toBe(-1);
  });
});

const { index } = await loadBodyStore(distDir);
const coreWith = async (settings: TokenSettings) => createEdge({ index, tokenDigests: await tokenDigests(settings) });
const request = (authorization: string | null, target = '/api/trees'): EdgeRequest => {
  const [pathname = '', query = ''] = target.split('?');
  const header = (name: string) => (name === 'authorization' ? authorization : null);
  return { method: 'GET', pathname, query, header, mount: undefined };
};
const statusOf = async (decide: ReturnType<typeof createEdge>, authorization: string | null) => {
  const decision = await decide(request(authorization));
  return decision.type === 'respond' ? decision.status : 'static';
};
const statusesOf = async (decide: ReturnType<typeof createEdge>, authorizations: (string | null)[]) => {
  const statuses = [];
  for (const authorization of authorizations) statuses.push(await statusOf(decide, authorization));
  return statuses;
};

describe('what the core remembers', () => {
  test('the same request gets the same frozen answer', async () => {
    const decide = await coreWith({ API_TOKENS: 'kept' });
    const first = await decide(request('Bearer kept', '/api/trees?search=Oak%20Tree'));
    expect(await decide(request('Bearer kept', '/api/trees?search=Oak%20Tree'))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.type === 'respond' && Object.isFrozen(first.headers)).toBe(true);
  });

  test('a token that passed keeps passing; a wrong one keeps failing', async () => {
    const decide = await coreWith({ API_TOKENS: 'kept' });
    expect(await statusesOf(decide, ['Bearer kept', 'Bearer kept', 'Bearer kept'])).toEqual([200, 200, 200]);
    expect(await statusesOf(decide, ['Bearer wrong', 'Bearer wrong', 'Bearer wrong'])).toEqual([401, 401, 401]);
  });

  test('a token removed from the configuration stops working in the next core (a reload)', async () => {
    const before = await coreWith({ API_TOKENS: 'old,new' });
    expect(await statusOf(before, 'Bearer old')).toBe(200);
    const digest = createHash('sha256').update('new').digest('hex');
    const after = await coreWith({ API_TOKEN_SHA256: digest });
    expect(await statusesOf(after, ['Bearer old', 'Bearer new'])).toEqual([401, 200]);
  });

  test('thousands of distinct queries and Accept-Encoding values are all answered right', async () => {
    const decide = await coreWith({ API_TOKENS: 'kept' });
    for (let index = 0; index < 10_000; index++) {
      const decision = await decide(request('Bearer kept', `/api/trees?search=no-such-${index}`));
      expect(decision.type === 'respond' && decision.status).toBe(404);
    }
    const oak = await decide(request('Bearer kept', '/api/trees?search=oak%20tree'));
    expect(oak.type === 'respond' && oak.body).toEqual({ stored: routeBody(nameRoute('trees', 'oaktree')) });
  });
});
