// The rules of a partial or conditional GET of a download (RFC 9110, 13.1 and 14), one test
// per rule, as src/contract/byte-ranges.ts states them.
import { describe, expect, test } from 'vitest';
import { answerFile, honouredRange, rangeOf } from '../../src/contract/byte-ranges.ts';

const ETAG = '"abc"';
const range = (header: string | null, size = 100, ifRange: string | null = null) =>
  rangeOf(header, size, ifRange, ETAG);

describe('Range', () => {
  test('no Range header: the whole file', () => {
    expect(range(null)).toEqual({ type: 'whole' });
  });

  test('bytes=a-b: those bytes, inclusive', () => {
    expect(range('bytes=0-9')).toEqual({ type: 'part', start: 0, end: 9 });
    expect(range('bytes=10-10')).toEqual({ type: 'part', start: 10, end: 10 });
  });

  test('an end past the file is cut to its last byte', () => {
    expect(range('bytes=90-500')).toEqual({ type: 'part', start: 90, end: 99 });
  });

  test('bytes=a-: from a to the end', () => {
    expect(range('bytes=95-')).toEqual({ type: 'part', start: 95, end: 99 });
  });

  test('bytes=-n: the last n bytes, or the whole file when n passes its size', () => {
    expect(range('bytes=-10')).toEqual({ type: 'part', start: 90, end: 99 });
    expect(range('bytes=-500')).toEqual({ type: 'part', start: 0, end: 99 });
  });

  test('white space around the header is no part of it', () => {
    expect(range(' bytes=0-9 ')).toEqual({ type: 'part', start: 0, end: 9 });
  });

  test('the unit is matched in any letter case', () => {
    expect(range('Bytes=0-0')).toEqual({ type: 'part', start: 0, end: 0 });
  });

  test('a start at or past the end, or bytes=-0, is unsatisfiable', () => {
    expect(range('bytes=100-')).toEqual({ type: 'unsatisfiable' });
    expect(range('bytes=100-200')).toEqual({ type: 'unsatisfiable' });
    expect(range('bytes=-0')).toEqual({ type: 'unsatisfiable' });
    expect(range('bytes=0-', 0)).toEqual({ type: 'unsatisfiable' });
    expect(range('bytes=-5', 0)).toEqual({ type: 'unsatisfiable' });
  });

  test('several ranges: the whole file (no multipart answer)', () => {
    expect(range('bytes=0-1,5-6')).toEqual({ type: 'whole' });
  });

  test('a malformed Range or another unit: the whole file', () => {
    for (const header of ['bytes=x', 'bytes=-', 'bytes=9-1', 'bytes 0-9', 'items=0-9', 'bytes=0-9x', 'bytes=1.5-2', ''])
      expect(range(header), header).toEqual({ type: 'whole' });
  });

  test('If-Range naming this ETag: the part', () => {
    expect(range('bytes=0-9', 100, ETAG)).toEqual({ type: 'part', start: 0, end: 9 });
    expect(range('bytes=0-9', 100, ` ${ETAG} `)).toEqual({ type: 'part', start: 0, end: 9 });
  });

  test('If-Range naming another ETag, a weak one or a date: the whole file', () => {
    for (const ifRange of ['"other"', `W/${ETAG}`, 'Thu, 26 Nov 2026 10:00:00 GMT'])
      expect(range('bytes=0-9', 100, ifRange), ifRange).toEqual({ type: 'whole' });
  });
});

describe('the answer to a GET or HEAD', () => {
  const answer = (headers: Record<string, string>, method = 'GET', size = 100) =>
    answerFile(method, (name) => headers[name] ?? null, size, ETAG);

  test('no condition: 200, the whole file, its size and Accept-Ranges', () => {
    expect(answer({})).toEqual({
      status: 200,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Length': '100' },
      bytes: { start: 0, end: 99 },
    });
  });

  test('a range: 206, the part, its length and Content-Range', () => {
    expect(answer({ range: 'bytes=90-' })).toEqual({
      status: 206,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Length': '10', 'Content-Range': 'bytes 90-99/100' },
      bytes: { start: 90, end: 99 },
    });
  });

  test('an unsatisfiable range: 416, no bytes, Content-Range with the size alone', () => {
    expect(answer({ range: 'bytes=100-' })).toEqual({
      status: 416,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Range': 'bytes */100', 'Content-Length': '0' },
    });
  });

  test('a range of one byte: 206 with that byte', () => {
    expect(answer({ range: 'bytes=5-5' })).toEqual({
      status: 206,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Length': '1', 'Content-Range': 'bytes 5-5/100' },
      bytes: { start: 5, end: 5 },
    });
  });

  test('a range with an If-Range naming another ETag: 200, the whole file', () => {
    expect(answer({ range: 'bytes=0-9', 'if-range': '"other"' })).toEqual({
      status: 200,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Length': '100' },
      bytes: { start: 0, end: 99 },
    });
  });

  test('If-None-Match naming the ETag: 304, before any range', () => {
    expect(answer({ 'if-none-match': ETAG, range: 'bytes=0-9' })).toEqual({ status: 304, headers: {} });
  });

  test('HEAD: the same status and headers as GET, and no bytes', () => {
    for (const headers of [{}, { 'if-none-match': ETAG }, { 'if-match': '"other"' }] as Record<string, string>[]) {
      const { bytes: _bytes, ...get } = answer(headers);
      expect(answer(headers, 'HEAD')).toEqual(get);
    }
  });

  test('HEAD with a Range: the Range ignored (RFC 9110 14.2, GET only), the 200 of the whole file', () => {
    for (const range of ['bytes=0-9', 'bytes=100-'])
      expect(answer({ range }, 'HEAD'), range).toEqual({
        status: 200,
        headers: { 'Accept-Ranges': 'bytes', 'Content-Length': '100' },
      });
  });

  test('If-Match naming another ETag, or this one weakly: 412, before If-None-Match and any range', () => {
    for (const ifMatch of ['"other"', `W/${ETAG}`])
      expect(answer({ 'if-match': ifMatch, 'if-none-match': ETAG, range: 'bytes=0-9' }), ifMatch).toEqual({
        status: 412,
        headers: { 'Content-Length': '0' },
      });
  });

  test('If-Match naming the ETag, or *: the answer as without it', () => {
    for (const ifMatch of [ETAG, '*', `"other", ${ETAG}`])
      expect(answer({ 'if-match': ifMatch, range: 'bytes=0-9' }), ifMatch).toEqual(answer({ range: 'bytes=0-9' }));
  });

  test('an empty file: 200 with no bytes', () => {
    expect(answer({}, 'GET', 0)).toEqual({ status: 200, headers: { 'Accept-Ranges': 'bytes', 'Content-Length': '0' } });
  });
});

describe('the Range a file server that cannot apply this rule may keep (honouredRange)', () => {
  const kept = (method: string, range: string | null, ifRange: string | null = null) =>
    honouredRange(method, (name) => ({ range, 'if-range': ifRange })[name] ?? null);

  test('a GET with one byte range and no If-Range: kept', () => {
    for (const header of ['bytes=0-9', 'bytes=5-', 'bytes=-5', ' Bytes=0-0 '])
      expect(kept('GET', header), header).toBe(true);
  });

  test('another unit, several ranges or a malformed Range: dropped (the whole file)', () => {
    for (const header of ['items=0-1', 'bytes=0-1,5-6', 'bytes=x-y', 'bytes=9-1', 'bytes=-', ''])
      expect(kept('GET', header), header).toBe(false);
  });

  test('a HEAD, or a GET with If-Range: dropped', () => {
    expect(kept('HEAD', 'bytes=0-9')).toBe(false);
    expect(kept('GET', 'bytes=0-9', '"abc"')).toBe(false);
  });

  test('no Range: nothing to keep', () => {
    expect(kept('GET', null)).toBe(false);
  });
});
