// API tokens: configured as plaintext (API_TOKENS) or as SHA-256 digests (API_TOKEN_SHA256),
// held only as digests, and compared digest to digest in constant time. Web Crypto only, so
// the same module runs in Node and in workerd.
import { readEnvironment, type TokenSettings, tokenVariables } from '../schema/environment.ts';

export type Digest = Uint8Array;

export async function sha256(text: string): Promise<Digest> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** The bytes of a string of hex digits (already checked to be 64 of 0-9a-f). */
function bytesOfHex(hex: string): Digest {
  return Uint8Array.from({ length: hex.length / 2 }, (_, index) =>
    Number.parseInt(hex.slice(2 * index, 2 * index + 2), 16),
  );
}

/** The digests of every configured token; a malformed entry is an EnvironmentError, never skipped. */
export async function tokenDigests(settings: TokenSettings): Promise<Digest[]> {
  const { tokens, tokenSha256 } = readEnvironment(tokenVariables, settings);
  return [...(await Promise.all(tokens.map(sha256))), ...tokenSha256.map(bytesOfHex)];
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
