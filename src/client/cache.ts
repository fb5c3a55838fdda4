// The client's memory of earlier answers: per URL, the ETag and the body of the last 200.
// A request for a URL it holds sends If-None-Match; a 304 reuses the body. Bounded by a
// number of entries, the least recently used going first.

export interface CacheOptions {
  /** How many answers to keep; the least recently used is dropped first. Default 500. */
  maxEntries?: number;
}

export interface CachedAnswer {
  etag: string;
  body: unknown;
}

export const DEFAULT_CACHE_ENTRIES = 500;

export class AnswerCache {
  readonly #entries = new Map<string, CachedAnswer>();
  readonly #maxEntries: number;

  constructor({ maxEntries = DEFAULT_CACHE_ENTRIES }: CacheOptions = {}) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`cache.maxEntries must be a whole number of at least 1, got ${maxEntries}`);
    this.#maxEntries = maxEntries;
  }

  get(url: string): CachedAnswer | undefined {
    const entry = this.#entries.get(url);
    if (entry) {
      // A Map keeps insertion order: moving the entry to the end marks it most recently used.
      this.#entries.delete(url);
      this.#entries.set(url, entry);
    }
    return entry;
  }

  set(url: string, entry: CachedAnswer): void {
    this.#entries.delete(url);
    this.#entries.set(url, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}
