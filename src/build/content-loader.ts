// An Astro content loader over src/build/content.ts: each collection holds that kind's
// validated records in API order, keyed by slug.
import type { Loader } from 'astro/loaders';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kind } from '../schema/kinds.ts';
import { loadContent, type Content } from './content.ts';
import { dataDirOf } from './releases.ts';

let loaded: { dir: string; content: Content } | undefined;

function contentOf(dir: string): Content {
  if (loaded?.dir !== dir) loaded = { dir, content: loadContent(dir) };
  return loaded.content;
}

export function contentCollectionLoader(kind: Kind): Loader {
  return {
    name: 'treefarm-content',
    load: async ({ store, parseData, config }) => {
      const content = contentOf(join(dataDirOf(fileURLToPath(config.root)), 'content'));
      store.clear();
      for (const entry of content.entries[kind.id]) {
        const data = await parseData({ id: entry.slug, data: { ...entry.data } });
        store.set({ id: entry.slug, data, filePath: entry.file });
      }
    },
  };
}
