// The token step of the edge core: whether a request's Authorization header carries a
// configured token, and which. Verified before the request is counted (rate-limit.ts), so a
// valid token never counts against its address, however the header is spelled.
import { boundedMemo, type Memo } from './memo.ts';
import { hexOf } from '../contract/sha256.ts';
import { configuredIndex, type Digest, digestPrefix, presentedToken } from './tokens.ts';

/** A token that passed: the key its count is kept under (its digest in hex) and its name. */
export interface VerifiedToken {
  readonly key: string;
  readonly name: string;
}

/** A token that passed, or why the request has none. */
export type Verdict = VerifiedToken | 'missing' | 'invalid';

export interface TokenVerdicts {
  /** The verdict on an Authorization value when it needs no hashing: missing, or remembered. */
  known(authorization: string | null): Verdict | undefined;
  /** The verdict on an Authorization value: remembered, or its token hashed and compared now. */
  verify(authorization: string | null): Promise<Verdict>;
}

/** Header values whose verdict is remembered as sent; longer values are not remembered. */
const SPELLINGS = { entries: 256, length: 256 };

/** The verdicts of one core: `tokenNames` in the order of `tokenDigests` (by default the digest's first 8 hex). */
export function tokenVerdicts(tokenDigests: readonly Digest[], tokenNames: readonly string[]): TokenVerdicts {
  // The tokens that passed, by the token itself (however its header was spelled): at most one
  // entry per configured token, so no client's variants crowd out another's. A reload makes a
  // new core, so a removed token stops working there.
  const verified: Memo<string, VerifiedToken> = boundedMemo(tokenDigests.length);
  // The verdict on each header value as sent, so a repeat is neither parsed nor hashed again.
  // Only a shortcut: a value it has let go is worked out again to the same verdict.
  const spellings: Memo<string, Verdict> = boundedMemo(SPELLINGS.entries);
  const rememberSpelling = (authorization: string, verdict: Verdict) => {
    if (authorization.length <= SPELLINGS.length) spellings.set(authorization, verdict);
  };
  const known = (authorization: string | null): Verdict | undefined => {
    if (authorization === null) return 'missing';
    const spelled = spellings.find(authorization);
    if (spelled !== undefined) return spelled;
    const token = presentedToken(authorization);
    // Runtimes join repeated headers with ", " and a configured token cannot hold a comma (both
    // lists are comma-separated): several Authorization headers are refused, whatever they carry.
    const verdict = token === '' ? 'missing' : token.includes(',') ? 'invalid' : verified.find(token);
    if (verdict !== undefined) rememberSpelling(authorization, verdict);
    return verdict;
  };
  return {
    known,
    async verify(authorization) {
      const remembered = known(authorization);
      if (remembered !== undefined || authorization === null) return remembered ?? 'missing';
      const token = presentedToken(authorization);
      const index = await configuredIndex(token, tokenDigests);
      const digest = tokenDigests[index];
      const verdict = digest ? { key: hexOf(digest), name: tokenNames[index] ?? digestPrefix(digest) } : 'invalid';
      if (typeof verdict === 'object') verified.set(token, verdict);
      rememberSpelling(authorization, verdict);
      return verdict;
    },
  };
}
