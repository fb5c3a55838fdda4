// The tokens of a local run (npm start, npm run worker): the configured ones, or one made up
// for the run, so a local server never serves the API without a token. Node side only: the
// Worker is deployed with its secrets and never makes a token up.
import { randomBytes } from 'node:crypto';

export interface LocalTokens {
  tokens: string[];
  tokenSha256: string[];
  /** Made up for this run when neither variable names a token: a local server never serves the API without one. */
  madeUpToken?: string;
}

/** The tokens a local run (npm start, npm run worker) serves, from its settings (settings.ts). */
export function localTokens({ tokens, tokenSha256 }: Pick<LocalTokens, 'tokens' | 'tokenSha256'>): LocalTokens {
  if (tokens.length > 0 || tokenSha256.length > 0) return { tokens, tokenSha256 };
  const madeUpToken = randomBytes(24).toString('base64url');
  return { tokens: [madeUpToken], tokenSha256, madeUpToken };
}

/** What a local run prints about a token it made up: a ready curl line. */
export function madeUpTokenNotice(origin: string, token: string): string {
  return `No API token configured (API_TOKENS or API_TOKEN_SHA256), so this run made one up:
  curl -H "Authorization: Bearer ${token}" "${origin}/api/trees?search=Oak%20Tree"`;
}
