// /search/near/<kind>/<root>.json: a kind's near-miss shards held under <root> (src/wiki/near-files.ts).
import type { APIRoute, GetStaticPaths } from 'astro';
import { nearIndex } from '../../../../wiki/near-index.ts';

export const getStaticPaths = (async () =>
  [...(await nearIndex())].flatMap(([kind, files]) =>
    [...files].map(([root, text]) => ({ params: { kind, root }, props: { text } })),
  )) satisfies GetStaticPaths;

export const GET: APIRoute<{ text: string }> = ({ props }) =>
  new Response(props.text, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
