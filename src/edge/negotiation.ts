// Content negotiation and conditional requests, kept apart from the routing in core.ts.

export type Encoding = 'br' | 'gzip' | 'identity';

const QUALITY = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The best of br and gzip that the Accept-Encoding header accepts (q > 0), else identity. */
export function chooseEncoding(acceptEncoding: string | null): Encoding {
  if (!acceptEncoding) return 'identity';
  const quality = new Map<string, number>();
  for (const element of acceptEncoding.split(',')) {
    const [coding = '', ...params] = element.split(';').map((part) => part.trim().toLowerCase());
    if (coding === '') continue;
    const q = params.find((param) => param.startsWith('q='))?.slice(2) ?? '1';
    if (!QUALITY.test(q)) continue; // a malformed weight makes the element meaningless
    quality.set(coding === 'x-gzip' ? 'gzip' : coding, Number(q));
  }
  const wildcard = quality.get('*') ?? 0;
  const br = quality.get('br') ?? wildcard;
  const gzip = quality.get('gzip') ?? wildcard;
  if (br <= 0 && gzip <= 0) return 'identity';
  return br >= gzip ? 'br' : 'gzip';
}

/** The ETag of a body with the given SHA-256, one per encoding of that body. */
export function etagFor(sha256Hex: string, encoding: Encoding): string {
  const suffix = encoding === 'identity' ? '' : `-${encoding}`;
  return `"${sha256Hex.slice(0, 32)}${suffix}"`;
}

/** Whether If-None-Match names `etag` (weak comparison, as RFC 9110 asks for GET). */
export function ifNoneMatchHits(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}
