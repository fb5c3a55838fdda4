// The resolver (src/contract/resolve.ts) over routing indexes made by hand: the scope of the
// list of releases, the errors naming what a broken build's index lacks, and what a near-miss
// suggestion reads of the index. The answers through a real build are the edge's tests
// (test/edge/core.test.ts).
import { describe, expect, test } from 'vitest';
import { type ApiQuery, currentRoot, resolve, type RouteIndex } from '../../src/contract/resolve.ts';
import { type IndexRoot, shardOf } from '../../src/contract/route-index.ts';

const ROOT: IndexRoot = { version: 'v1', shards: 100, nearGroup: 3 };

/** A current data's index (ROOT) of these routes (route -> body), with the bodies' texts; no release. */
function handMade(routes: Record<string, string>, texts: Record<string, string> = {}, { hasRoot = true } = {}) {
  const shardsRead: number[] = [];
  const index: RouteIndex = {
    root: (release) => (release === undefined && hasRoot ? ROOT : undefined),
    shard: (_release, n) => {
      shardsRead.push(n);
      return Object.fromEntries(Object.entries(routes).filter(([route]) => shardOf(route, ROOT) === n));
    },
    text: (body) => texts[body] ?? `no body ${body}`,
  };
  return { index, shardsRead };
}

const query = (endpoint: ApiQuery['endpoint'], search: string | null, suggest = false): ApiQuery => ({
  endpoint,
  suggest,
  search,
  release: null,
});

describe('the list of releases', () => {
  test("is the current data's: its body, with the current data's version", async () => {
    const { index } = handMade({ releases: 'releases-body' });
    expect(await resolve(index, query('releases', null))).toEqual({
      type: 'body',
      status: 200,
      body: 'releases-body',
      scope: { release: undefined, version: 'v1' },
    });
  });
});

describe("a broken build's index: an error naming what it lacks", () => {
  test('no root for the current data', async () => {
    const { index } = handMade({ releases: 'releases-body' }, {}, { hasRoot: false });
    const message = 'The build has no routing index: rebuild with npm run build.';
    await expect(currentRoot(index)).rejects.toThrow(message);
    await expect(resolve(index, query('releases', null))).rejects.toThrow(message);
  });

  test('no list of releases', async () => {
    const { index } = handMade({ 'trees/list': 'list-body' });
    await expect(resolve(index, query('releases', null))).rejects.toThrow(
      'The routing index lacks releases: rebuild with npm run build.',
    );
  });

  test("no kind's not-found answer, for a search that finds nothing", async () => {
    const { index } = handMade({ 'trees/list': 'list-body' });
    expect(await resolve(index, query('trees', null))).toMatchObject({ status: 200, body: 'list-body' });
    await expect(resolve(index, query('trees', 'oak'))).rejects.toThrow('The routing index lacks trees/not-found.');
  });

  test("no kind's empty suggestion, for a suggestion without its own answer", async () => {
    const { index } = handMade({ 'trees/suggest/first': 'first-body' });
    expect(await resolve(index, query('trees', null, true))).toMatchObject({ status: 200, body: 'first-body' });
    await expect(resolve(index, query('trees', '7', true))).rejects.toThrow(
      'The routing index lacks trees/suggest/none.',
    );
  });
});

describe('a near-miss suggestion', () => {
  // Near-miss shards named ab (holding the variant abc of the record Abcx's key) and none under
  // it: the query abcd (variants abcd, bcd, acd, abd, abc) walks ab then abc, bc, ac, and ab
  // then abd; abc's walk ends where abcd's did.
  const nearAb = JSON.stringify({ entries: { 0: { name: 'Abcx', level: 1 } }, variants: { abc: { abcx: [0] } } });
  const routes = { 'trees/suggest/near/ab': 'near-ab', 'trees/suggest/none': 'none-body' };

  test('is made from the shards its variants fall in', async () => {
    const { index } = handMade(routes, { 'near-ab': nearAb });
    expect(await resolve(index, query('trees', 'abcd', true))).toEqual({
      type: 'made',
      status: 200,
      text: '{"error":false,"message":"Suggestions for the requested tree.","data":[{"name":"Abcx","level":1}]}',
      scope: { release: undefined, version: 'v1' },
    });
  });

  test('reads each index shard on its variants’ walks once, and none past where a walk ends', async () => {
    const { index, shardsRead } = handMade(routes, { 'near-ab': nearAb });
    await resolve(index, query('trees', 'abcd', true));
    const walked = [
      'trees/suggest/key/abcd',
      ...['ab', 'abc', 'bc', 'ac', 'abd'].map((p) => `trees/suggest/near/${p}`),
    ];
    const expected = walked.map((route) => shardOf(route, ROOT));
    // Each of these routes in a shard of its own, and none where a walk past its end would go.
    const pastTheEnd = ['bcd', 'acd'].map((p) => shardOf(`trees/suggest/near/${p}`, ROOT));
    expect(new Set([...expected, ...pastTheEnd]).size).toBe(expected.length + pastTheEnd.length);
    expect(shardsRead).toEqual(expected);
  });
});
