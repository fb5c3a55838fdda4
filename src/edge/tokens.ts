// API tokens: configured as plaintext (API_TOKENS) or as SHA-256 digests (API_TOKEN_SHA256),
// held only as digests, and compared digest to digest in constant time. Web Crypto only, so
// the same module runs in Node and in workerd.

export type Digest = Uint8Array;

export interface TokenSettings {
  /** Plaintext tokens, comma-separated (local and test use). */
  API_TOKENS?: string | undefined;
  /** Lowercase hex SHA-256 digests of tokens, comma-separated (deployments). */
  API_TOKEN_SHA256?: string | undefined;
}

export class TokenConfigError extends Error {
  override name = 'TokenConfigError';
}

export async function sha256(text: string): Promise<Digest> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** The bytes of a string of hex digits (already checked to be an even count of 0-9a-f). */
function bytesOfHex(hex: string): Digest {
  return Uint8Array.from({ length: hex.length / 2 }, (_, index) =>
    Number.parseInt(hex.slice(2 * index, 2 * index + 2), 16),
  );
}

/** "a, b,,c" -> ["a", "b", "c"]: how both variables list their entries. */
export function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The digests of every configured token; a malformed digest is an error, never skipped. */
export async function tokenDigests(settings: TokenSettings): Promise<Digest[]> {
  const digests = await Promise.all(commaList(settings.API_TOKENS).map(sha256));
  for (const [index, hex] of commaList(settings.API_TOKEN_SHA256).entries()) {
    if (!/^[0-9a-f]{64}$/.test(hex)) {
      throw new TokenConfigError(
        `API_TOKEN_SHA256 entry ${index + 1} is not 64 lowercase hex digits (a SHA-256 digest).`,
      );
    }
    digests.push(bytesOfHex(hex));
  }
  return digests;
}

/** Equality of two digests in time that depends only on their length. */
export function digestsEqual(a: Digest, b: Digest): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (const [index, byte] of a.entries()) difference |= byte ^ (b[index] ?? 0);
  return difference === 0;
}

/** Whether `token` is configured: its digest is compared with every digest, with no early exit. */
export async function isConfiguredToken(token: string, digests: readonly Digest[]): Promise<boolean> {
  const presented = await sha256(token);
  let matched = false;
  for (const digest of digests) matched = digestsEqual(presented, digest) || matched;
  return matched;
}

/** The token of an Authorization header value: "<token>" or "Bearer <token>" (scheme in any case). */
export function presentedToken(authorization: string | null): string {
  const value = (authorization ?? '').trim();
  // The value is trimmed and \s+ takes every space after the scheme: the rest is the token.
  const bearer = /^bearer(?:\s+|$)/i.exec(value);
  return bearer ? value.slice(bearer[0].length) : value;
}
