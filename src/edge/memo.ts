// A bounded memo for the edge's per-request work: the same inputs (an Accept-Encoding value,
// a query, an answer's shape) come back request after request, so their results are
// remembered, up to a fixed number of entries, so hostile variety cannot grow memory.
//
// What goes past the limit is the entry used least recently, nearly: a hit moves its entry to
// the newest end only when it has fallen into the older half (more than half the limit of
// entries were put in after it). So an entry used at least once in every half-limit of new
// entries is never let go, however many others a flood of unique requests puts in, and a hit
// on a recent entry, the common case, costs one lookup as it would without any order.

export interface Memo<K, V> {
  /** The remembered value for `key`, or `compute(key)` remembered now (the least used goes past the limit). */
  get(key: K, compute: (key: K) => V): V;
  /** The remembered value for `key`, if any. */
  find(key: K): V | undefined;
  /** Remembers `value` for `key` (the least used goes past the limit). */
  set(key: K, value: V): void;
  readonly size: number;
}

/** A remembered value, boxed so a remembered undefined is told apart from a miss with one lookup. */
interface Entry<V> {
  value: V;
  /** When the entry was put in, or last moved to the newest end: a count of such puts. */
  stamp: number;
}

export function boundedMemo<K, V>(limit: number): Memo<K, V> {
  // A Map keeps its keys in the order they were put in: the first is the one to let go.
  const entries = new Map<K, Entry<V>>();
  const stale = Math.floor(limit / 2);
  let puts = 0;
  const remember = (key: K, value: V) => {
    if (!entries.delete(key) && entries.size >= limit) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    entries.set(key, { value, stamp: puts++ });
  };
  const used = (key: K): Entry<V> | undefined => {
    const known = entries.get(key);
    if (known !== undefined && puts - known.stamp > stale) {
      entries.delete(key);
      known.stamp = puts++;
      entries.set(key, known);
    }
    return known;
  };
  return {
    get(key, compute) {
      const known = used(key);
      if (known) return known.value;
      const value = compute(key);
      remember(key, value);
      return value;
    },
    find: (key) => used(key)?.value,
    set: remember,
    get size() {
      return entries.size;
    },
  };
}
