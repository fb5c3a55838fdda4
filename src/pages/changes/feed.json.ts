// /changes/feed.json: the data releases as a JSON Feed 1.1.
import type { APIRoute } from 'astro';
import { releaseViews } from '../../wiki/changes.ts';
import { jsonFeed } from '../../wiki/feeds.ts';
import { currentRecords, history } from '../../wiki/releases.ts';

export const GET: APIRoute = ({ site }) => {
  const body = jsonFeed(releaseViews(history, currentRecords), site?.origin);
  return new Response(body, { headers: { 'Content-Type': 'application/feed+json; charset=utf-8' } });
};
