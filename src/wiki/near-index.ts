// The API's near-miss shards (src/build/suggest-index.ts), published for the wiki's search page
// (src/wiki/search-suggest.ts reads them): the API's own files need a token. One file per
// named kind and first character (NEAR_ROOT_LENGTH), so a query reads a few small files.
import { namesOf } from '../build/content.ts';
import { nearShardTexts } from '../build/suggest-index.ts';
import { searchKey } from '../contract/search-key.ts';
import type { NearShard } from '../contract/suggest.ts';
import { kinds } from '../schema/kinds.ts';
import { entriesOf } from './records.ts';
import { NEAR_ROOT_LENGTH, type NearManifest, type NearRoot } from './search-suggest.ts';

/** Each named kind's root files, by root. */
export type NearIndex = Map<string, Map<string, NearRoot>>;

async function kindRoots(kind: (typeof kinds)[number]): Promise<Map<string, NearRoot>> {
  const entries = (await entriesOf(kind.id)).map(({ data }) => ({ data, keys: namesOf(data).map(searchKey) }));
  const roots = new Map<string, NearRoot>();
  for (const [prefix, text] of nearShardTexts(entries)) {
    const root = prefix.slice(0, NEAR_ROOT_LENGTH);
    const shards = roots.get(root) ?? {};
    shards[prefix] = JSON.parse(text) as NearShard;
    roots.set(root, shards);
  }
  return roots;
}

let made: Promise<NearIndex> | undefined;

/** The near index of every named kind, made once per build (the manifest and each root file read it). */
export function nearIndex(): Promise<NearIndex> {
  made ??= Promise.all(
    kinds.filter((kind) => kind.named).map(async (kind) => [kind.id, await kindRoots(kind)] as const),
  ).then((pairs) => new Map(pairs));
  return made;
}

export function nearManifest(index: NearIndex): NearManifest {
  return Object.fromEntries([...index].map(([kind, roots]) => [kind, [...roots.keys()]]));
}
