// API tokens: configured as plaintext (API_TOKENS) or as SHA-256 digests (API_TOKEN_SHA256),
// held only as digests, and compared digest to digest in constant time.
import { createHash } from 'node:crypto';
import { readEnvironment, type TokenSettings, tokenVariables } from '../schema/environment.ts';

export type Digest = Uint8Array;

export function sha256(text: string): Digest {
  return createHash('sha256').update(text).digest();
}

/** The digests of every configured token; a malformed entry is an EnvironmentError, never skipped. */
export function tokenDigests(settings: TokenSettings): Digest[] {
  const { tokens, tokenSha256 } = readEnvironment(tokenVariables, settings);
  return [...tokens.map(sha256), ...tokenSha256.map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')))];
}

/** Equality of two digests in time that depends only on their length. */
export function digestsEqual(a: Digest, b: Digest): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (const [index, byte] of a.entries()) difference |= byte ^ (b[index] ?? 0);
  return difference === 0;
}

/** Whether `token` is configured: its digest is compared with every digest, with no early exit. */
export function isConfiguredToken(token: string, digests: readonly Digest[]): boolean {
  const presented = sha256(token);
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
