// An Astro content loader over the build's records (the integration's virtual module, made
// from the one load of the build): each collection holds that kind's validated records in
// API order, keyed by slug.
import type { Loader } from 'astro/loaders';
import records from 'virtual:treefarm/records';
import type { Kind } from '../schema/kinds.ts';

export function contentCollectionLoader(kind: Kind): Loader {
  return {
    name: 'treefarm-content',
    load: async ({ store, parseData }) => {
      store.clear();
      for (const entry of records[kind.id]) {
        const data = await parseData({ id: entry.slug, data: { ...entry.data } });
        store.set({ id: entry.slug, data, filePath: entry.file });
      }
    },
  };
}
