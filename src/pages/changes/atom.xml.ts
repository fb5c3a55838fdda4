// /changes/atom.xml: the data releases as an Atom feed.
import type { APIRoute } from 'astro';
import { releaseViews } from '../../wiki/changes.ts';
import { atomFeed } from '../../wiki/feeds.ts';
import { currentRecords, siteHistory } from '../../wiki/releases.ts';

export const GET: APIRoute = async ({ site }) => {
  const { content, history } = await siteHistory();
  const body = atomFeed(releaseViews(history, currentRecords(content)), site?.href ?? 'http://localhost/');
  return new Response(body, { headers: { 'Content-Type': 'application/atom+xml; charset=utf-8' } });
};
