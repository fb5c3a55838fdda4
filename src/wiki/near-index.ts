// The API's near-miss shards (src/build/suggest-index.ts), published for the wiki's search page
// (src/wiki/search-suggest.ts reads them): the API's own files need a token. One file per named
// kind and root, roots split while a file would pass its budget (src/wiki/near-files.ts), so a
// query reads a few small files.
import { namesOf } from '../build/content.ts';
import { nearShardTexts } from '../build/suggest-index.ts';
import { searchKey } from '../contract/search-key.ts';
import { kinds } from '../schema/kinds.ts';
import { nearFiles } from './near-files.ts';
import { entriesOf } from './records.ts';
import type { NearManifest } from './search-suggest.ts';

/** Each named kind's files, as JSON text by root. */
export type NearIndex = Map<string, Map<string, string>>;

async function kindFiles(kind: (typeof kinds)[number]): Promise<Map<string, string>> {
  const entries = (await entriesOf(kind.id)).map(({ data }) => ({ data, keys: namesOf(data).map(searchKey) }));
  return nearFiles(nearShardTexts(entries));
}

let made: Promise<NearIndex> | undefined;

/** The near index of every named kind, made once per build (the manifest and each root file read it). */
export function nearIndex(): Promise<NearIndex> {
  made ??= Promise.all(
    kinds.filter((kind) => kind.named).map(async (kind) => [kind.id, await kindFiles(kind)] as const),
  ).then((pairs) => new Map(pairs));
  return made;
}

/** The manifest: each named kind's roots, exactly the files the index has. */
export function nearManifest(index: NearIndex): NearManifest {
  return Object.fromEntries([...index].map(([kind, files]) => [kind, [...files.keys()]]));
}
