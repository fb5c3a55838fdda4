// The `release` parameter of the API contract: which release a request pins. What a release id
// is, and their order, is src/schema/release-ids.ts.

/**
 * The release a request pins, from its first `release` parameter (null when absent): undefined
 * for none (absent or empty after trimming), else the id asked for, which may be unknown.
 */
export function parseRelease(raw: string | null): string | undefined {
  const value = raw?.trim() ?? '';
  return value === '' ? undefined : value;
}
