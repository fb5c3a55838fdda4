// A bounded memo for the edge's per-request work: the same inputs (an Accept-Encoding value,
// a query, an answer's shape) come back request after request, so their results are
// remembered, up to a fixed number of entries, so hostile variety cannot grow memory.

export interface Memo<K, V> {
  /** The remembered value for `key`, or `compute(key)` remembered now (the oldest goes past the limit). */
  get(key: K, compute: (key: K) => V): V;
  /** The remembered value for `key`, if any. */
  find(key: K): V | undefined;
  /** Remembers `value` for `key` (the oldest goes past the limit). */
  set(key: K, value: V): void;
  readonly size: number;
}

export function boundedMemo<K, V>(limit: number): Memo<K, V> {
  // Boxed, so a remembered undefined is told apart from a miss with one lookup.
  const values = new Map<K, { value: V }>();
  const remember = (key: K, value: V) => {
    if (!values.has(key) && values.size >= limit) {
      const oldest = values.keys().next();
      if (!oldest.done) values.delete(oldest.value);
    }
    values.set(key, { value });
  };
  return {
    get(key, compute) {
      const known = values.get(key);
      if (known) return known.value;
      const value = compute(key);
      remember(key, value);
      return value;
    },
    find: (key) => values.get(key)?.value,
    set: remember,
    get size() {
      return values.size;
    },
  };
}
