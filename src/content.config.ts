// Astro content collections, one per kind, validated by the same zod schemas and loaded by
// the same loader as the API build, so the wiki and the API can never disagree.
import { defineCollection } from 'astro:content';
import { contentCollectionLoader } from './build/content-loader.ts';
import { kinds } from './schema/kinds.ts';

export const collections = Object.fromEntries(
  kinds.map((kind) => [
    kind.id,
    defineCollection({ loader: contentCollectionLoader(kind), schema: kind.contentSchema }),
  ]),
);
