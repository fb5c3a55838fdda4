// Counts requests per key in fixed windows of the configured length, aligned to the clock
// (a window of 60 s starts at each whole minute), so every process and a restarted one agree
// where a window ends. What the local server's rate limit (API_RATE_LIMIT) counts with: by
// token digest, and by client address (as the core keys it: its /64 for IPv6) for requests
// without a valid token.
import type { RateLimit } from '../schema/environment.ts';
import type { RateCount, CountedBy } from '../edge/core.ts';

/**
 * A count of this server's: whether the request is within the limit (and was counted), and,
 * always, the requests left in this window after it and the whole seconds (at least 1) until
 * the window resets.
 */
export type KnownCount = Required<RateCount>;

export type { CountedBy } from '../edge/core.ts';

/** Counts a request; the local server's counts live in one process (rate-ipc.ts for several). */
export type RateCounter = (countedBy: CountedBy, key: string) => KnownCount | Promise<KnownCount>;

/**
 * One fixed-window count. Keys are forgotten when their window ends, and at most `maxKeys`
 * are held in one window, so a flood from ever new keys costs bounded memory. A new key past
 * that is let through uncounted: what the address count wants (see localRateCounter); the
 * token count holds one key per configured token and has no bound.
 */
export class WindowCounter {
  private readonly limit: RateLimit;
  private readonly maxKeys: number;
  private readonly windowMs: number;
  private window = -1;
  private counts = new Map<string, number>();

  constructor(limit: RateLimit, maxKeys = Number.POSITIVE_INFINITY) {
    this.limit = limit;
    this.maxKeys = maxKeys;
    this.windowMs = limit.seconds * 1000;
  }

  hit(key: string, now = Date.now()): KnownCount {
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
    const used = this.counts.get(key);
    // Not held, so nothing is counted against it: the whole limit is left.
    if (used === undefined && this.counts.size >= this.maxKeys)
      return { allowed: true, remaining: this.limit.requests, resetSeconds };
    if ((used ?? 0) >= this.limit.requests) return { allowed: false, remaining: 0, resetSeconds };
    this.counts.set(key, (used ?? 0) + 1);
    return { allowed: true, remaining: this.limit.requests - (used ?? 0) - 1, resetSeconds };
  }
}

/** Client addresses (IPv4 addresses and IPv6 /64s) one window holds at most (about 110 bytes each). */
export const MAX_ADDRESSES_PER_WINDOW = 100_000;

/**
 * The counts of one process: a count per token, and a bounded one per client address. Past a
 * full address table a request from a new address goes on to its token uncounted, so a flood
 * of new addresses never locks out a valid token (which is then counted against its digest,
 * as always); a missing or wrong token from such an address gets its 401. `clock` is the time
 * the windows are told by (a test sets it, so that no window ends in the middle of the test).
 */
export function localRateCounter(
  limit: RateLimit,
  clock: () => number = Date.now,
): (countedBy: CountedBy, key: string) => KnownCount {
  const tokens = new WindowCounter(limit);
  const addresses = new WindowCounter(limit, MAX_ADDRESSES_PER_WINDOW);
  return (countedBy, key) => (countedBy === 'token' ? tokens.hit(key, clock()) : addresses.hit(key, clock()));
}
