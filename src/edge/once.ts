// A value read or loaded once while that succeeds (a Worker isolate's, a Node process's): a failure is
// let go, so the next request tries again rather than meeting the same error for the life of the process.

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
