// An Astro content loader over the build's content (session.ts): each collection holds that
// kind's validated records in API order, keyed by slug.
import { fileURLToPath } from 'node:url';
import type { Loader } from 'astro/loaders';
import type { Kind } from '../schema/kinds.ts';
import { buildContent } from './session.ts';

export function contentCollectionLoader(kind: Kind): Loader {
  return {
    name: 'treefarm-content',
    load: async ({ store, parseData, config }) => {
      const content = buildContent(fileURLToPath(new URL('content/', config.root)));
      store.clear();
      for (const entry of content.entries[kind.id]) {
        const data = await parseData({ id: entry.slug, data: { ...entry.data } });
        store.set({ id: entry.slug, data, filePath: entry.file });
      }
    },
  };
}
