// /search/near.json: the named kinds' roots of near-miss shards, for the search page's "Did you mean".
import type { APIRoute } from 'astro';
import { nearIndex, nearManifest } from '../../wiki/near-index.ts';

export const GET: APIRoute = async () =>
  new Response(JSON.stringify(nearManifest(await nearIndex())), {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
