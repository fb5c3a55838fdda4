// A value read or loaded once per isolate while that succeeds: a failure is let go, so the next
// request tries again rather than meeting the same error for the isolate's life.

/** `load` called once, its promise shared by every caller; a failed load is forgotten. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
