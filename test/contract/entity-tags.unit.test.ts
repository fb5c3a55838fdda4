// How conditional requests compare entity tags (RFC 9110, 13.1.1 and 13.1.2), one rule for the
// API's answers and for the downloads (src/contract/entity-tags.ts), one test per rule.
import { describe, expect, test } from 'vitest';
import { ifMatchHolds, ifNoneMatchHits } from '../../src/contract/entity-tags.ts';

const ETAG = `"${'ef'.repeat(16)}-br"`;
/** Each header value with what the rule says of it for ETAG. */
const says = (rule: (header: string | null, etag: string) => boolean, cases: [string | null, boolean][]) => {
  for (const [header, result] of cases) expect({ header, result: rule(header, ETAG) }).toEqual({ header, result });
};

describe('If-None-Match (weak comparison)', () => {
  test('absent or empty: no hit', () => {
    says(ifNoneMatchHits, [
      [null, false],
      ['', false],
    ]);
  });

  test('the ETag itself, alone, in a list or with white space around it: a hit', () => {
    says(ifNoneMatchHits, [
      [ETAG, true],
      [`"other", ${ETAG}`, true],
      [`"other",${ETAG} , "more"`, true],
      [` ${ETAG} `, true],
    ]);
  });

  test('the weak form of the ETag is a hit', () => {
    says(ifNoneMatchHits, [
      [`W/${ETAG}`, true],
      [`"x", W/${ETAG}`, true],
    ]);
  });

  test('* is a hit, alone or in a list', () => {
    says(ifNoneMatchHits, [
      ['*', true],
      ['"x", *', true],
    ]);
  });

  test('other ETags, the ETag unquoted, or a W/ inside a tag: no hit', () => {
    says(ifNoneMatchHits, [
      ['"other"', false],
      [ETAG.slice(1, -1), false],
      [`"${'ef'.repeat(16)}-gzip"`, false],
      [`"aW/${ETAG.slice(1)}`, false],
    ]);
  });
});

describe('If-Match (strong comparison)', () => {
  test('absent or empty: the request goes on', () => {
    says(ifMatchHolds, [
      [null, true],
      ['', true],
    ]);
  });

  test('the ETag itself, alone or in a list, or *: the request goes on', () => {
    says(ifMatchHolds, [
      [ETAG, true],
      [`"other", ${ETAG}`, true],
      [` ${ETAG} `, true],
      ['*', true],
    ]);
  });

  test('another ETag, or the weak form of this one: no match (412)', () => {
    says(ifMatchHolds, [
      ['"other"', false],
      [`W/${ETAG}`, false],
      [ETAG.slice(1, -1), false],
    ]);
  });
});
