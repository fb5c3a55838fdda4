// How a conditional request's entity tags are compared (RFC 9110, 13.1.1 and 13.1.2): one rule
// for the API's answers (the edge) and for the files a runtime serves itself (byte-ranges.ts).
// The edge runs it on every request that sends If-None-Match: a plain loop, no pattern.

/**
 * Whether If-None-Match names `etag` (a strong tag): `*`, or the tag in a list, compared
 * weakly as RFC 9110 asks for this header (`W/"x"` names `"x"`). The client's copy is current.
 */
export function ifNoneMatchHits(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}

/**
 * Whether If-Match lets a request on a file whose strong tag is `etag` go on: absent (or
 * empty, as if absent), `*` (the file exists), or naming the tag strongly, so a weak `W/"x"`
 * never matches. Otherwise the answer is 412.
 */
export function ifMatchHolds(ifMatch: string | null, etag: string): boolean {
  if (!ifMatch) return true;
  for (const candidate of ifMatch.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag) return true;
  }
  return false;
}
