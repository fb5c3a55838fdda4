// "Did you mean" on the search page, by the API's suggestion rule (src/contract/suggest.ts):
// when Pagefind finds nothing, the names within the query's edit budget, nearer first, read
// from the same near-miss shards the API reads, which the build publishes for the wiki
// (src/build/near-files.ts) in one file per kind and root (src/contract/near-files.ts). A query reads
// the manifest and the files of the roots its variants start with: at the real content's size
// (roots of one character) at most three a kind, more small ones where large content split a root.
import { classifySearch } from '../contract/search-query.ts';
import { type NearShard, nearSuggestions, queryVariants } from '../contract/suggest.ts';
import { NEAR_MANIFEST_PATH, type NearManifest, nearRootPath, rootsToRead } from '../contract/near-files.ts';

/** The near-miss shards of one kind's file, by prefix. */
export type NearRoot = Record<string, NearShard>;

/** How many names "Did you mean" offers at most. */
export const DID_YOU_MEAN_LIMIT = 5;

/**
 * The names a query that found nothing may have meant, nearest first within each kind, kinds
 * in the manifest's order; none for a query too short for near misses. `read` fetches a
 * published file's JSON.
 */
export async function didYouMean(query: string, read: (path: string) => Promise<unknown>): Promise<string[]> {
  const text = classifySearch(query);
  const variants = text.type === 'key' ? queryVariants(text.key) : new Set<string>();
  if (text.type !== 'key' || variants.size === 0) return [];
  const manifest = (await read(NEAR_MANIFEST_PATH)) as NearManifest;
  const byKind = await Promise.all(
    Object.entries(manifest).map(async ([kind, published]) => {
      const files = rootsToRead(published, variants).map((root) => read(nearRootPath(kind, root)));
      const shards = new Map<string, NearShard>();
      for (const file of await Promise.all(files))
        for (const entry of Object.entries(file as NearRoot)) shards.set(...entry);
      return nearSuggestions({ key: text.key, isShard: (prefix) => shards.has(prefix) }, shards);
    }),
  );
  const names = byKind.flat().flatMap((suggestion) => ('name' in suggestion ? [suggestion.name] : []));
  return [...new Set(names)].slice(0, DID_YOU_MEAN_LIMIT);
}
