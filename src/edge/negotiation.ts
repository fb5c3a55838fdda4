// Content negotiation (the encoding, and the ETag of each), kept apart from the routing in core.ts;
// conditional requests compare ETags as src/contract/entity-tags.ts says.

export type Encoding = 'br' | 'gzip' | 'identity';

const QUALITY = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The encoding to send: the first of br, gzip and identity in the client's order of
 * preference (q descending, then the order listed; q=0 refuses). Other codings and "*" are
 * passed over. This is the rule Cloudflare's edge (and wrangler's local copy of it) applies to
 * a Worker's answers: any other choice, br first at equal weight included, is decoded and
 * encoded again there under the Worker's ETag (TESTING.md), so both runtimes answer alike.
 */
export function chooseEncoding(acceptEncoding: string | null): Encoding {
  if (!acceptEncoding) return 'identity';
  const preferences: { coding: string; q: number }[] = [];
  for (const element of acceptEncoding.split(',')) {
    const [coding = '', ...params] = element.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='))?.slice(2) ?? '1';
    // An element with a malformed weight means nothing.
    if (QUALITY.test(q)) preferences.push({ coding, q: Number(q) });
  }
  preferences.sort((a, b) => b.q - a.q); // stable: equal weights keep the client's order
  for (const { coding, q } of preferences) {
    if (q > 0 && (coding === 'br' || coding === 'gzip' || coding === 'identity')) return coding;
  }
  return 'identity';
}

/** The ETag of a body with the given SHA-256, one per encoding of that body. */
export function etagFor(sha256Hex: string, encoding: Encoding): string {
  const suffix = encoding === 'identity' ? '' : `-${encoding}`;
  return `"${sha256Hex.slice(0, 32)}${suffix}"`;
}
