// How the API's near-miss shards (src/build/suggest-index.ts) are laid out in the wiki's public
// files, and which of those files a query reads: the one rule the build's writer
// (src/build/near-files.ts) and the search page's reader (src/wiki/search-suggest.ts) share.
//
// A file is named by a root and holds the shards whose prefix starts with it. Roots start as one
// character; a root whose file would pass NEAR_FILE_BUDGET_BYTES is split by the next character,
// as far as the shards' prefixes go, and keeps only the shard named by the root itself (if any).
// So every shard is in exactly one file: the one of the longest listed root that starts its prefix.

/** Files are first made per this many leading characters of a shard's prefix. */
export const NEAR_ROOT_LENGTH = 1;

/**
 * A near-miss file is split once it would pass this size: a search page reads a few such files per
 * query (a kind's files of its variants' roots), so each should be a small fetch, far below the 25
 * MiB a Workers static asset may be. At 256 KiB the real content's files (67 KB the largest) stay one
 * per first character; 10,000 synthetic trees made a 94.5 MiB file of one first character.
 */
export const NEAR_FILE_BUDGET_BYTES = 256 * 1024;

const utf8 = new TextEncoder();

interface Part {
  prefix: string;
  /** `"prefix":{shard}`, the shard's member in its file's JSON object. */
  text: string;
  bytes: number;
}

/** A file's JSON text: an object of its shards by prefix. */
const fileText = (parts: readonly Part[]) => `{${parts.map((part) => part.text).join(',')}}`;
const fileBytes = (parts: readonly Part[]) => parts.reduce((sum, part) => sum + part.bytes + 1, 1);

function groupBy(parts: readonly Part[], length: number): Map<string, Part[]> {
  const groups = new Map<string, Part[]>();
  for (const part of parts) {
    const root = part.prefix.slice(0, length);
    const group = groups.get(root);
    if (group) group.push(part);
    else groups.set(root, [part]);
  }
  return groups;
}

/**
 * A kind's near-miss files, by root, as the JSON text of each, from its shards' texts by prefix.
 * Each file is within `budgetBytes` but one holding a single shard larger than that: a shard is
 * the API's own unit, written whole.
 */
export function nearFiles(
  shardTexts: ReadonlyMap<string, string>,
  budgetBytes: number = NEAR_FILE_BUDGET_BYTES,
): Map<string, string> {
  const parts = [...shardTexts.keys()].sort().map((prefix): Part => {
    const text = `${JSON.stringify(prefix)}:${shardTexts.get(prefix)}`;
    return { prefix, text, bytes: utf8.encode(text).length };
  });
  const files = new Map<string, string>();
  const place = (root: string, group: Part[]) => {
    const longer = group.filter((part) => part.prefix.length > root.length);
    if (fileBytes(group) <= budgetBytes || longer.length === 0) {
      files.set(root, fileText(group));
      return;
    }
    const own = group.filter((part) => part.prefix.length <= root.length);
    if (own.length > 0) files.set(root, fileText(own));
    for (const [child, members] of groupBy(longer, root.length + 1)) place(child, members);
  };
  for (const [root, members] of groupBy(parts, NEAR_ROOT_LENGTH)) place(root, members);
  return files;
}

/**
 * The listed roots whose files a query with these variants reads: every root that starts one of
 * them. A variant's shard is found by walking its prefixes (shardHolding), so the files of all of
 * them are read, not only the longest root's: the shorter roots hold the shards on the way.
 */
export function rootsToRead(roots: readonly string[], variants: Iterable<string>): string[] {
  const wanted = [...variants];
  return roots.filter((root) => wanted.some((variant) => variant.startsWith(root)));
}

/** Each named kind's roots that have files (any length), in the registry's order of kinds. */
export type NearManifest = Record<string, string[]>;

export const NEAR_MANIFEST_PATH = '/search/near.json';
/** A root is made of search-key characters (a-z, 0-9), so the path is also the file's below the site. */
export const nearRootPath = (kind: string, root: string) => `/search/near/${kind}/${encodeURIComponent(root)}.json`;
