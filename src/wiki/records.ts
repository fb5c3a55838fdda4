// The wiki's records: each kind's Astro collection, in list order.
import { getCollection } from 'astro:content';
import { byListOrder } from '../contract/list-order.ts';
import type { KindId } from '../schema/kinds.ts';
import type { ContentOf, WikiEntry } from './views.ts';

export async function entriesOf<K extends KindId>(kind: K): Promise<WikiEntry<K>[]> {
  const collection = await getCollection(kind);
  // The collections hold data the kind's content schema has validated.
  return collection.map((entry) => ({ slug: entry.id, data: entry.data as ContentOf<K> })).sort(byListOrder);
}
