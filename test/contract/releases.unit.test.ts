// The release rules of src/contract that the build (naming and ordering releases), the edge
// and the offline client share: what a release id is, which id comes next, their order, and
// where a release keeps its answers. Expected values are written out by hand.
import { describe, expect, test } from 'vitest';
import { rootPath, shardPath } from '../../src/contract/paths.ts';
import { parseRelease } from '../../src/contract/releases.ts';
import { byReleaseOrder, nextReleaseId, releaseIdParts, type ReleaseIdParts } from '../../src/schema/release-ids.ts';
import { resolve, type RouteIndex } from '../../src/contract/resolve.ts';

describe('release ids', () => {
  test('YYYY-MM-DD is the day its first release; -2, -3, ... -10 the later ones', () => {
    expect(releaseIdParts('2026-12-01')).toEqual({ date: '2026-12-01', sequence: 1 });
    expect(releaseIdParts('2026-12-01-2')).toEqual({ date: '2026-12-01', sequence: 2 });
    expect(releaseIdParts('2026-12-01-10')).toEqual({ date: '2026-12-01', sequence: 10 });
  });

  test('anything else is no release id', () => {
    for (const id of ['', 'latest', '2026-12', '2026-12-1', '26-12-01', '2026-12-01-1', '2026-12-01-02', ' 2026-12-01'])
      expect({ id, parts: releaseIdParts(id) }).toEqual({ id, parts: undefined });
  });

  test('nor is a date of the right shape that is no day of the calendar', () => {
    const days = ['2026-13-01', '2026-00-10', '2026-12-32', '2026-12-00', '2026-13-01-2'];
    for (const id of [...days, '2026-02-29', '2026-02-30', '2026-04-31', '2100-02-29'])
      expect({ id, parts: releaseIdParts(id) }).toEqual({ id, parts: undefined });
    expect(releaseIdParts('2028-02-29')).toEqual({ date: '2028-02-29', sequence: 1 });
  });

  test("the next id: the day itself, or the day's next number after a release that day", () => {
    expect(nextReleaseId('2026-12-01', undefined)).toBe('2026-12-01');
    expect(nextReleaseId('2026-12-02', { date: '2026-12-01', sequence: 3 })).toBe('2026-12-02');
    expect(nextReleaseId('2026-12-01', { date: '2026-12-01', sequence: 1 })).toBe('2026-12-01-2');
    expect(nextReleaseId('2026-12-01', { date: '2026-12-01', sequence: 9 })).toBe('2026-12-01-10');
  });
});

describe('release order', () => {
  const parts = (id: string): ReleaseIdParts => {
    const found = releaseIdParts(id);
    if (!found) throw new Error(`${id} is no release id`);
    return found;
  };

  test('oldest first: by date, then by number, -10 after -9', () => {
    const ids = ['2026-12-01-10', '2027-01-01', '2026-12-01-9', '2026-11-30', '2026-12-01'];
    const sorted = ids.map(parts).sort(byReleaseOrder);
    expect(sorted.map(({ date, sequence }) => `${date}#${sequence}`)).toEqual([
      '2026-11-30#1',
      '2026-12-01#1',
      '2026-12-01#9',
      '2026-12-01#10',
      '2027-01-01#1',
    ]);
  });

  test('as a comparator: negative when the first is older, positive when newer, 0 for the same release', () => {
    const signs = (a: string, b: string) => [
      Math.sign(byReleaseOrder(parts(a), parts(b))),
      Math.sign(byReleaseOrder(parts(b), parts(a))),
    ];
    expect(signs('2026-11-30', '2026-12-01')).toEqual([-1, 1]);
    expect(signs('2026-11-30-5', '2026-12-01')).toEqual([-1, 1]);
    expect(signs('2026-12-01-2', '2026-12-01-3')).toEqual([-1, 1]);
    expect(signs('2026-12-01-2', '2026-12-01-2')).toEqual([0, 0]);
  });
});

describe('where a release keeps its answers', () => {
  test('its own routing index below api/index/releases/<id>/, beside the current data in api/index/current/', () => {
    expect(rootPath('2026-12-01')).toBe('api/index/releases/2026-12-01/root.json');
    expect(shardPath('2026-12-01-2', 3)).toBe('api/index/releases/2026-12-01-2/3.json');
    expect(rootPath(undefined)).toBe('api/index/current/root.json');
  });
});

describe('a release named in a query', () => {
  test('the first release parameter, trimmed; empty or absent is the current data', () => {
    expect(parseRelease(' 2026-12-01 ')).toBe('2026-12-01');
    expect(parseRelease('  ')).toBeUndefined();
    expect(parseRelease(null)).toBeUndefined();
  });

  test('an id of another shape is no release, and never reaches the index (no path is made of it)', async () => {
    const asked: (string | undefined)[] = [];
    const index: RouteIndex = {
      root: (release) => {
        asked.push(release);
        return undefined;
      },
      shard: () => ({}),
      text: () => '',
    };
    for (const release of ['../../secrets', '2026-12-01/../x', '2026-02-30', '2026-12-01 '])
      expect(await resolve(index, { endpoint: 'trees', suggest: false, search: null, release })).toEqual({
        type: 'unknown-release',
      });
    expect(asked).toEqual(['2026-12-01']);
  });
});
