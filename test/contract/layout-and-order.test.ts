// The small shared rules of src/contract that the build, the edge and the client import:
// list order, the bundle's names, how an archive's format is told from its first bytes, and
// where each API file lies in the pack.
import { describe, expect, test } from 'vitest';
import { archiveFormat, bundleFileName, dataPath } from '../../src/contract/bundle-layout.ts';
import { byListOrder, type ListOrdered } from '../../src/contract/list-order.ts';
import { packLayout } from '../../src/contract/pack.ts';

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

describe('the pack', () => {
  const digest = (size: number, fill: string) => ({ sha256: fill.repeat(64), size });
  const built = (size: number, br: number, gzip: number) => ({
    ...digest(size, 'a'),
    br: digest(br, 'b'),
    gzip: digest(gzip, 'c'),
  });

  test("holds each file's bytes, then its br, then its gzip, one file after another in the manifest's order", () => {
    const files = { 'api/b.json': built(10, 7, 9), 'api/a.json': built(100, 40, 50) };
    const parts = [...packLayout(files)].map(({ file, part, offset, expected }) => [file, part, offset, expected.size]);
    expect(parts).toEqual([
      ['api/b.json', 'identity', 0, 10],
      ['api/b.json', 'br', 10, 7],
      ['api/b.json', 'gzip', 17, 9],
      ['api/a.json', 'identity', 26, 100],
      ['api/a.json', 'br', 126, 40],
      ['api/a.json', 'gzip', 166, 50],
    ]);
  });
});
