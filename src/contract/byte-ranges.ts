// What a download answers to a conditional or partial GET (RFC 9110, 13.1 and 14): one rule
// for every runtime that serves a file itself (the Worker's downloads in R2), so a resumed
// download behaves the same wherever it is served. Only a single byte range is served; any
// Range header this does not honour gets the whole file, as RFC 9110 allows.

/** The part of a file a request gets: all of it, bytes start..end (inclusive), or none (416). */
export type RangeAnswer = { type: 'whole' } | { type: 'part'; start: number; end: number } | { type: 'unsatisfiable' };

const WHOLE: RangeAnswer = { type: 'whole' };
/** One byte range: `a-b`, `a-` or `-n`, digits only. */
const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * The answer to a Range header for a file of `size` bytes whose strong ETag is `etag`. A
 * malformed header, several ranges, or an If-Range that does not name this ETag: the whole file.
 */
export function rangeOf(range: string | null, size: number, ifRange: string | null, etag: string): RangeAnswer {
  if (range === null) return WHOLE;
  // If-Range asks for the part only if the file is still the one it names (a strong match);
  // a date, which these files do not send, never matches.
  if (ifRange !== null && ifRange.trim() !== etag) return WHOLE;
  const match = SINGLE_RANGE.exec(range.trim());
  if (!match) return WHOLE;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return WHOLE;
  if (first === '') {
    // The last n bytes; "-0" asks for none of them.
    const length = Number(last);
    if (length === 0 || size === 0) return { type: 'unsatisfiable' };
    return { type: 'part', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.POSITIVE_INFINITY : Number(last);
  if (end < start) return WHOLE;
  if (start >= size) return { type: 'unsatisfiable' };
  return { type: 'part', start, end: Math.min(end, size - 1) };
}

/** Content-Range of a part, or of a 416 (`bytes *\/size`). */
export function contentRange(answer: RangeAnswer, size: number): string | undefined {
  if (answer.type === 'part') return `bytes ${answer.start}-${answer.end}/${size}`;
  if (answer.type === 'unsatisfiable') return `bytes */${size}`;
  return undefined;
}

/**
 * Whether If-None-Match names `etag` (a list, `*`, or one tag), compared weakly as RFC 9110
 * says for this header: the client's copy is current and gets a 304.
 */
export function noneMatch(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}
