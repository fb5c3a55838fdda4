// API tokens: configured as plaintext (API_TOKENS) or as SHA-256 digests (API_TOKEN_SHA256),
// held only as digests, and compared digest to digest in constant time. Web Crypto only, so
// the same module runs in Node and in workerd.
import { hexOf } from '../contract/sha256.ts';
import {
  readEnvironment,
  type TokenSettings,
  tokenEntry,
  tokenVariables,
  type ValuesOf,
} from '../schema/environment.ts';

export type Digest = Uint8Array;

/** A configured token: its digest, and the name the access log shows (`name:` or the digest's first 8 hex). */
export interface ConfiguredToken {
  digest: Digest;
  name: string;
}

/** How the access log names a token without a name: the first 8 hex digits of its digest. */
export const digestPrefix = (digest: Digest): string => hexOf(digest.slice(0, 4));

export async function sha256(text: string): Promise<Digest> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** The bytes of a string of hex digits (already checked to be 64 of 0-9a-f). */
function bytesOfHex(hex: string): Digest {
  return Uint8Array.from({ length: hex.length / 2 }, (_, index) =>
    Number.parseInt(hex.slice(2 * index, 2 * index + 2), 16),
  );
}

/** Every configured token with its name; a malformed entry is an EnvironmentError, never skipped. */
export async function configuredTokens(settings: TokenSettings): Promise<ConfiguredToken[]> {
  return tokensOf(readEnvironment(tokenVariables, settings));
}

/** The entries of API_TOKENS and API_TOKEN_SHA256 as a process's settings read them (each already checked). */
export type TokenLists = ValuesOf<typeof tokenVariables>;

/** Every token of lists already read, with its name. */
export async function tokensOf({ tokens, tokenSha256 }: TokenLists): Promise<ConfiguredToken[]> {
  const named = async (entry: string, digestOf: (value: string) => Digest | Promise<Digest>) => {
    const { name, value } = tokenEntry(entry);
    const digest = await digestOf(value);
    return { digest, name: name ?? digestPrefix(digest) };
  };
  return Promise.all([
    ...tokens.map((entry) => named(entry, sha256)),
    ...tokenSha256.map((entry) => named(entry, bytesOfHex)),
  ]);
}

/** The digests of every configured token; a malformed entry is an EnvironmentError, never skipped. */
export async function tokenDigests(settings: TokenSettings): Promise<Digest[]> {
  return (await configuredTokens(settings)).map(({ digest }) => digest);
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
  return (await configuredIndex(token, digests)) >= 0;
}

/** Where `token`'s digest is among `digests` (-1: nowhere), compared with every one, no early exit. */
export async function configuredIndex(token: string, digests: readonly Digest[]): Promise<number> {
  const presented = await sha256(token);
  let matched = -1;
  for (const [index, digest] of digests.entries()) if (digestsEqual(presented, digest)) matched = index;
  return matched;
}

/** The token of an Authorization header value: "<token>" or "Bearer <token>" (scheme in any case). */
export function presentedToken(authorization: string | null): string {
  const value = (authorization ?? '').trim();
  // The value is trimmed and \s+ takes every space after the scheme: the rest is the token.
  const bearer = /^bearer(?:\s+|$)/i.exec(value);
  return bearer ? value.slice(bearer[0].length) : value;
}
