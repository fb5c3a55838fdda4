// The small shared rules of src/contract that the build, the edge and the client import:
// list order, the bundle's names, how an archive's format is told from its first bytes, how a
// body is stored, and where a route lies in the routing index.
import { describe, expect, test } from 'vitest';
import { archiveFormat, bundleFileName, dataPath } from '../../src/contract/bundle-layout.ts';
import { byListOrder, type ListOrdered } from '../../src/contract/list-order.ts';
import { BodyContainerError, bodyLayout, containerLength, packBody } from '../../src/contract/body-container.ts';
import { hexOf, sha256Hex } from '../../src/contract/sha256.ts';
import { suggestShardRoute } from '../../src/contract/paths.ts';
import { checkRoot, NEAR_GROUP_LENGTH, shardOf } from '../../src/contract/route-index.ts';

describe('list order', () => {
  const entry = (slug: string, level: number, order?: number): ListOrdered => ({
    slug,
    data: order === undefined ? { level } : { level, order },
  });
  const sorted = (entries: ListOrdered[]) => [...entries].sort(byListOrder).map((ordered) => ordered.slug);

  test('level ascending', () => {
    expect(sorted([entry('c', 3), entry('a', 10), entry('b', 2)])).toEqual(['b', 'c', 'a']);
  });

  test('within a level, the declared order (none counts as 0)', () => {
    expect(sorted([entry('large', 1, 2), entry('small', 1, 0), entry('medium', 1, 1)])).toEqual([
      'small',
      'medium',
      'large',
    ]);
    expect(sorted([entry('b', 1, 1), entry('a', 1)])).toEqual(['a', 'b']);
  });

  test('within a level and order, the slug, so the file system never decides', () => {
    expect(sorted([entry('b', 1), entry('c', 1), entry('a', 1)])).toEqual(['a', 'b', 'c']);
    expect(byListOrder(entry('a', 1), entry('a', 1))).toBe(0);
  });

  test('as a comparator: negative when the first comes first, positive when it comes after, 0 when equal', () => {
    const signs = (a: ListOrdered, b: ListOrdered) => [Math.sign(byListOrder(a, b)), Math.sign(byListOrder(b, a))];
    expect(signs(entry('a', 1), entry('b', 1))).toEqual([-1, 1]);
    expect(signs(entry('z', 1, 0), entry('a', 1, 1))).toEqual([-1, 1]);
    expect(signs(entry('z', 1), entry('a', 2))).toEqual([-1, 1]);
  });
});

describe('bundle layout', () => {
  test('archive names and data paths', () => {
    expect(bundleFileName('0123456789abcdef', 'tar.gz')).toBe('treefarm-data-0123456789abcdef.tar.gz');
    expect(bundleFileName('0123456789abcdef', 'zip')).toBe('treefarm-data-0123456789abcdef.zip');
    expect(dataPath('trees')).toBe('data/trees.json');
  });

  test('the format is told by the first bytes: 1f 8b is gzip, 50 4b 03 04 is zip, anything else neither', () => {
    const cases: [bytes: number[], format: string | undefined][] = [
      [[0x1f, 0x8b, 0x08], 'tar.gz'],
      [[0x50, 0x4b, 0x03, 0x04, 0x14], 'zip'],
      [[0x50, 0x4b, 0x03, 0x04], 'zip'],
      [[0x50, 0x4b, 0x03], undefined],
      [[0x1f, 0x8c], undefined],
      [[0x1e, 0x8b], undefined],
      [[0x50, 0x4b, 0x03, 0x05], undefined],
      [[0x50, 0x4b, 0x04, 0x04], undefined],
      [[0x50, 0x4c, 0x03, 0x04], undefined],
      [[0x51, 0x4b, 0x03, 0x04], undefined],
      [[], undefined],
    ];
    for (const [bytes, format] of cases)
      expect({ bytes, format: archiveFormat(Uint8Array.from(bytes)) }).toEqual({ bytes, format });
  });
});

describe('a stored body', () => {
  const parts = { identity: Uint8Array.of(1, 2, 3), br: Uint8Array.of(4), gzip: Uint8Array.of(5, 6) };

  test('is a header of the three sizes, then the identity, br and gzip bytes, one after another', () => {
    const stored = packBody(parts);
    expect([...stored]).toEqual([...new TextEncoder().encode('3 1 2\n'), 1, 2, 3, 4, 5, 6]);
    expect(bodyLayout(stored, 'x')).toEqual({ identity: [6, 9], br: [9, 10], gzip: [10, 12] });
  });

  test('one that is cut short, too long or without a header is refused, naming it', () => {
    const stored = packBody(parts);
    for (const bytes of [stored.subarray(0, 11), Uint8Array.of(...stored, 0), Uint8Array.of(1, 2, 3)])
      expect(() => bodyLayout(bytes, 'api/bodies/x')).toThrow('api/bodies/x is not a stored body');
  });

  test('its header states its length, read from the start of what follows (a pack holds one after another)', () => {
    const stored = packBody(parts);
    expect(containerLength(Uint8Array.of(...stored, ...stored))).toBe(stored.length);
    expect(containerLength(stored.subarray(0, 6))).toBe(stored.length);
    for (const bytes of [stored.subarray(0, 5), Uint8Array.of(1, 2, 3), new TextEncoder().encode('3 1 x\n')])
      expect(containerLength(bytes)).toBeUndefined();
  });

  const container = (header: string, size: number) =>
    Uint8Array.of(...new TextEncoder().encode(header), ...new Uint8Array(size));

  test('a header of anything but three sizes, or with no line break, is a BodyContainerError', () => {
    for (const bytes of [container('x3 0 0\n', 3), container('3 0 0x\n', 3), container('6 0 0x', 0)]) {
      const error = (() => {
        try {
          return bodyLayout(bytes, 'x');
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(BodyContainerError);
      expect(error).toMatchObject({ name: 'BodyContainerError' });
    }
  });

  test('the longest header, three 16-digit sizes, is read', () => {
    const sixteenDigits = (size: number) => String(size).padStart(16, '0');
    const header = `${sixteenDigits(1)} ${sixteenDigits(0)} ${sixteenDigits(2)}\n`;
    expect(bodyLayout(container(header, 3), 'x')).toEqual({ identity: [51, 52], br: [52, 52], gzip: [52, 54] });
  });

  test('its name is the SHA-256 of the whole file in lowercase hex, each byte two digits', async () => {
    expect(hexOf(Uint8Array.of(0, 10, 255))).toBe('000aff');
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('the routing index', () => {
  test('a route is in one shard of its scope, the same for every reader', () => {
    const root = { shards: 7, nearGroup: NEAR_GROUP_LENGTH };
    const n = shardOf('trees/name/oaktree', root);
    expect(n).toBeGreaterThanOrEqual(0);
    expect(n).toBeLessThan(7);
    expect(shardOf('trees/name/oaktree', root)).toBe(n);
  });

  test('near-miss shards with the same first nearGroup characters share an index shard', () => {
    const root = { shards: 97, nearGroup: 3 };
    const shards = ['seq', 'sequ', 'sequo', 'seqx'].map((prefix) => shardOf(suggestShardRoute('trees', prefix), root));
    expect(new Set(shards).size).toBe(1);
  });

  test('a root without a version, a shard count or a near group is refused, naming the file', () => {
    for (const value of [
      {},
      { shards: 2, nearGroup: 3 },
      { version: 7, shards: 2, nearGroup: 3 },
      { version: 'v', shards: 0, nearGroup: 3 },
      { version: 'v', shards: 2, nearGroup: 1 },
      null,
    ])
      expect(() => checkRoot(value, 'api/index/current/root.json')).toThrow(
        'api/index/current/root.json is not the root of a routing index.',
      );
    for (const nearGroup of [NEAR_GROUP_LENGTH, NEAR_GROUP_LENGTH + 2])
      expect(checkRoot({ version: 'v', shards: 2, nearGroup }, 'x')).toEqual({ version: 'v', shards: 2, nearGroup });
  });
});
