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
  // Both groups take part in every match: each is a text, perhaps empty.
  const [, first, last] = match;
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

/** How a runtime answers a GET or HEAD of a file it serves itself, beside the file's own headers. */
export interface FileAnswer {
  status: 200 | 206 | 304 | 416;
  /** Accept-Ranges, and Content-Length and Content-Range as the status needs them. */
  headers: Record<string, string>;
  /** The bytes to send, first to last (inclusive); undefined for none (a 304, a 416, any HEAD). */
  bytes?: { start: number; end: number };
}

/**
 * The answer to a GET or HEAD of a file of `size` bytes whose strong ETag is `etag`: 304 when
 * If-None-Match names it, else a part (206), none (416) or the whole file (200) as Range says.
 */
export function answerFile(
  method: string,
  header: (name: string) => string | null,
  size: number,
  etag: string,
): FileAnswer {
  if (noneMatch(header('if-none-match'), etag)) return { status: 304, headers: {} };
  const range = rangeOf(header('range'), size, header('if-range'), etag);
  const head = method.toUpperCase() === 'HEAD';
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
