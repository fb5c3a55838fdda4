// /search/near/<kind>/<root>.json: a kind's near-miss shards whose prefix starts with <root>.
import type { APIRoute, GetStaticPaths } from 'astro';
import { nearIndex } from '../../../../wiki/near-index.ts';
import type { NearRoot } from '../../../../wiki/search-suggest.ts';

export const getStaticPaths = (async () =>
  [...(await nearIndex())].flatMap(([kind, roots]) =>
    [...roots].map(([root, shards]) => ({ params: { kind, root }, props: { shards } })),
  )) satisfies GetStaticPaths;

export const GET: APIRoute<{ shards: NearRoot }> = ({ props }) =>
  new Response(JSON.stringify(props.shards), { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
