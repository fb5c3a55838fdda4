// A bounded memo for the edge's per-request work: the same inputs (an Accept-Encoding value,
// a query, an answer's shape) come back request after request, so their results are
// remembered, up to a fixed number of entries, so hostile variety cannot grow memory.

export interface Memo<K, V> {
  /** The remembered value for `key`, or `compute(key)` remembered now (the oldest goes past the limit). */
  get(key: K, compute: (key: K) => V): V;
  readonly size: number;
}

export function boundedMemo<K, V>(limit: number): Memo<K, V> {
  // Boxed, so a remembered undefined is told apart from a miss with one lookup.
  const values = new Map<K, { value: V }>();
  return {
    get(key, compute) {
      const known = values.get(key);
      if (known) return known.value;
      const value = compute(key);
      if (values.size >= limit) {
        const oldest = values.keys().next();
        if (!oldest.done) values.delete(oldest.value);
      }
      values.set(key, { value });
      return value;
    },
    get size() {
      return values.size;
    },
  };
}
