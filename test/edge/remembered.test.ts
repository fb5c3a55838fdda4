// The remembered-decisions wrapper (src/edge/remembered.ts): a request seen before gets the
// core's decision back at once, keyed by everything the core reads; nothing else is known.
import { describe, expect, test } from 'vitest';
import { createEdge, type EdgeRequest } from '../../src/edge/core.ts';
import { type RememberedEdge, rememberDecisions } from '../../src/edge/remembered.ts';
import { tokenDigests } from '../../src/edge/tokens.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { distDir } from '../support/runtimes.ts';

const { index } = await loadBodyStore(distDir);
const core = createEdge({ index, tokenDigests: await tokenDigests({ API_TOKENS: 'kept' }) });
const request = (target: string, headers: Record<string, string> = {}): EdgeRequest => {
  const [pathname = '', query = ''] = target.split('?');
  return { method: 'GET', pathname, query, header: (name) => headers[name] ?? null, mount: undefined };
};
const kept = { authorization: 'Bearer kept' };
/** The decision the wrapper gives at once, or undefined when it asks the core (which it then remembers). */
const known = (edge: RememberedEdge, asked: EdgeRequest) => {
  const decision = edge.decide(asked);
  return decision instanceof Promise ? undefined : decision;
};

describe('remembered decisions', () => {
  test('a request decided once is known, with the same decision the core gave', async () => {
    const edge = rememberDecisions(core);
    const asked = request('/api/trees?search=oak%20tree', kept);
    const first = edge.decide(asked);
    expect(first).toBeInstanceOf(Promise);
    const decided = await first;
    expect(known(edge, request('/api/trees?search=oak%20tree', kept))).toBe(decided);
    expect(decided).toBe(await core(asked));
  });

  test('each header the core reads tells requests apart: token, Accept-Encoding, If-None-Match', async () => {
    const edge = rememberDecisions(core);
    await edge.decide(request('/api/trees', kept));
    const others: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { ...kept, 'accept-encoding': 'br' },
      { ...kept, 'if-none-match': '*' },
    ];
    for (const headers of others)
      expect({ headers, known: known(edge, request('/api/trees', headers)) }).toEqual({ headers, known: undefined });
    expect(known(edge, { ...request('/api/trees', kept), method: 'HEAD' })).toBeUndefined();
  });

  test('a request too long to keep is decided every time, and right', async () => {
    const edge = rememberDecisions(core);
    const long = request(`/api/trees?search=${'a'.repeat(600)}`, kept);
    const decided = await edge.decide(long);
    expect(decided).toMatchObject({ status: 404 });
    expect(known(edge, long)).toBeUndefined();
  });
});

describe('remembered decisions under a flood of unique URLs', () => {
  test('the hot answers stay remembered: a flood of unique URLs lets go of the ones not asked again', async () => {
    const edge = rememberDecisions(core);
    const hot = ['/api/trees?search=oak%20tree', '/api/trees', '/api/cutters?search=1'];
    for (const target of hot) await edge.decide(request(target, kept));
    const askedOfTheCore: string[] = [];
    // Three times what the wrapper keeps (4096), each hot request asked again once in every 100.
    for (let flood = 0; flood < 3 * 4096; flood++) {
      await edge.decide(request(`/api/trees?search=flood-${flood}`, kept));
      if (flood % 100 !== 0) continue;
      for (const target of hot) if (!known(edge, request(target, kept))) askedOfTheCore.push(target);
    }
    expect(askedOfTheCore).toEqual([]);
    expect(known(edge, request('/api/trees?search=flood-0', kept))).toBeUndefined();
  }, 60_000);
});
