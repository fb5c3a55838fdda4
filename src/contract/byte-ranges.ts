// What a download answers to a conditional or partial GET (RFC 9110, 13.1 and 14): one rule
// for every runtime that serves a file itself (the Worker's downloads in R2), so a resumed
// download behaves the same wherever it is served. Only a single byte range is served; any
// Range header this does not honour gets the whole file, as RFC 9110 allows. Range applies to
// GET alone (RFC 9110 14.2: a server MUST ignore it on any other method): a HEAD with Range is
// the 200 of the whole file, as Workers static assets answer it.
import { ifMatchHolds, ifNoneMatchHits } from './entity-tags.ts';

/** The part of a file a request gets: all of it, bytes start..end (inclusive), or none (416). */
export type RangeAnswer = { type: 'whole' } | { type: 'part'; start: number; end: number } | { type: 'unsatisfiable' };

const WHOLE: RangeAnswer = { type: 'whole' };
/** One byte range: `a-b`, `a-` or `-n`, digits only. */
const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/** The one byte range a Range header asks for, its first and last byte the match's groups; undefined if none. */
function singleRange(range: string): RegExpExecArray | undefined {
  const match = SINGLE_RANGE.exec(range.trim());
  if (!match) return undefined;
  // Both groups take part in every match: each is a text, perhaps empty.
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first !== '' && last !== '' && Number(last) < Number(first)) return undefined;
  return match;
}

/**
 * Whether a GET's Range header is one this rule would honour given the file's size: a single
 * byte range, with no If-Range (which only the file's own ETag could answer). A file server
 * that cannot apply this rule itself keeps such a Range and drops any other, so a Range it
 * would answer otherwise (several ranges, another unit, a malformed one) gets the whole file.
 */
export function honouredRange(method: string, header: (name: string) => string | null): boolean {
  const range = header('range');
  return method.toUpperCase() === 'GET' && range !== null && header('if-range') === null && !!singleRange(range);
}

/**
 * The answer to a Range header for a file of `size` bytes whose strong ETag is `etag`. A
 * malformed header, several ranges, or an If-Range that does not name this ETag: the whole file.
 */
export function rangeOf(range: string | null, size: number, ifRange: string | null, etag: string): RangeAnswer {
  if (range === null) return WHOLE;
  // If-Range asks for the part only if the file is still the one it names (a strong match);
  // a date, which these files do not send, never matches.
  if (ifRange !== null && ifRange.trim() !== etag) return WHOLE;
  const single = singleRange(range);
  if (!single) return WHOLE;
  const [, first, last] = single;
  if (first === '') {
    // The last n bytes; "-0" asks for none of them.
    const length = Number(last);
    if (length === 0 || size === 0) return { type: 'unsatisfiable' };
    return { type: 'part', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.POSITIVE_INFINITY : Number(last);
  if (start >= size) return { type: 'unsatisfiable' };
  return { type: 'part', start, end: Math.min(end, size - 1) };
}

/** How a runtime answers a GET or HEAD of a file it serves itself, beside the file's own headers. */
export interface FileAnswer {
  status: 200 | 206 | 304 | 412 | 416;
  /** Accept-Ranges, and Content-Length and Content-Range as the status needs them. */
  headers: Record<string, string>;
  /** The bytes to send, first to last (inclusive); undefined for none (a 304, a 412, a 416, any HEAD). */
  bytes?: { start: number; end: number };
}

/**
 * The answer to a GET or HEAD of a file of `size` bytes whose strong ETag is `etag`, the
 * conditions in RFC 9110's order (13.2.2): 412 when If-Match does not name it, 304 when
 * If-None-Match does, else a part (206), none (416) or the whole file (200) as a GET's Range says.
 */
export function answerFile(
  method: string,
  header: (name: string) => string | null,
  size: number,
  etag: string,
): FileAnswer {
  if (!ifMatchHolds(header('if-match'), etag)) return { status: 412, headers: { 'Content-Length': '0' } };
  if (ifNoneMatchHits(header('if-none-match'), etag)) return { status: 304, headers: {} };
  const head = method.toUpperCase() === 'HEAD';
  const range = head ? WHOLE : rangeOf(header('range'), size, header('if-range'), etag);
  if (range.type === 'unsatisfiable')
    return {
      status: 416,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Range': `bytes */${size}`, 'Content-Length': '0' },
    };
  const { start, end } = range.type === 'part' ? range : { start: 0, end: size - 1 };
  const headers: Record<string, string> = { 'Accept-Ranges': 'bytes', 'Content-Length': String(end - start + 1) };
  if (range.type === 'part') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  const bytes = head || end < start ? undefined : { start, end };
  return { status: range.type === 'part' ? 206 : 200, headers, ...(bytes ? { bytes } : {}) };
}
