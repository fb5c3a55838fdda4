// Content negotiation: the encoding and its ETag (src/edge/negotiation.ts).
import { describe, expect, test } from 'vitest';
import { chooseEncoding, etagFor, type Encoding } from '../../src/edge/negotiation.ts';

describe('chooseEncoding', () => {
  /** Each Accept-Encoding value with the encoding it must give. */
  const chooses = (cases: [acceptEncoding: string | null, expected: Encoding][]) => {
    for (const [acceptEncoding, expected] of cases)
      expect({ acceptEncoding, chosen: chooseEncoding(acceptEncoding) }).toEqual({ acceptEncoding, chosen: expected });
  };

  test('no Accept-Encoding, or an empty one: identity', () => {
    chooses([
      [null, 'identity'],
      ['', 'identity'],
    ]);
  });

  test('br or gzip when the client accepts it', () => {
    chooses([
      ['br', 'br'],
      ['gzip', 'gzip'],
    ]);
  });

  test('the highest q wins', () => {
    chooses([
      ['gzip;q=0.8, br;q=0.9', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['identity;q=0.1, gzip;q=0.2', 'gzip'],
      ['br;q=0.9, gzip;q=1', 'gzip'],
    ]);
  });

  test('weights with up to three decimals, 1.000 included, count', () => {
    chooses([
      ['gzip;q=0.55, br;q=0.5', 'gzip'],
      ['br;q=0.125, gzip;q=0.12', 'br'],
      ['br;q=1.000, gzip;q=0.5', 'br'],
      ['gzip;q=1.00, br;q=0.999', 'gzip'],
    ]);
  });

  test('equal q: the order the client listed', () => {
    chooses([
      ['gzip, br', 'gzip'],
      ['br, gzip', 'br'],
      ['identity, br', 'identity'],
      ['br;q=0.5, gzip;q=0.5', 'br'],
      ['gzip, deflate, br', 'gzip'],
      ['br, deflate, gzip', 'br'],
    ]);
  });

  test('q=0 refuses a coding', () => {
    chooses([
      ['br;q=0, gzip', 'gzip'],
      ['br;q=0.000', 'identity'],
      ['br;q=0, gzip;q=0', 'identity'],
    ]);
  });

  test('* and codings the edge does not make are passed over', () => {
    chooses([
      ['*', 'identity'],
      ['*, gzip;q=0.5', 'gzip'],
      ['deflate, zstd, gzip;q=0.1', 'gzip'],
      ['zstd', 'identity'],
    ]);
  });

  test('an element with a malformed q is ignored', () => {
    chooses([
      ['br;q=abc, gzip;q=0.1', 'gzip'],
      ['br;q=1.5, gzip;q=0.1', 'gzip'],
      ['br;q=-1', 'identity'],
      ['br;q=0.0001', 'identity'],
      ['br;q=', 'identity'],
    ]);
  });

  test('codings and parameters are read in any letter case, with any white space', () => {
    chooses([
      ['BR', 'br'],
      ['  gzip ;  Q=0.5 , br ; q=0.4 ', 'gzip'],
    ]);
  });

  test('parameters other than q do not change the weight', () => {
    chooses([['br;level=1;q=0.4, gzip;q=0.3', 'br']]);
  });

  test('empty elements are skipped', () => {
    chooses([[', ,br,', 'br']]);
  });
});

describe('etagFor', () => {
  const sha = 'ab'.repeat(32);

  test('a quoted strong ETag, one per encoding', () => {
    const etags = (['identity', 'br', 'gzip'] as const).map((encoding) => etagFor(sha, encoding));
    for (const etag of etags) expect(etag).toMatch(/^"[^"]+"$/);
    expect(new Set(etags).size).toBe(3);
  });

  test('bodies with different digests get different ETags', () => {
    expect(etagFor('cd'.repeat(32), 'identity')).not.toBe(etagFor(sha, 'identity'));
  });
});
