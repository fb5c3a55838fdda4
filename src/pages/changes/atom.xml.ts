// /changes/atom.xml: the data releases as an Atom feed.
import type { APIRoute } from 'astro';
import { releaseViews } from '../../wiki/changes.ts';
import { atomFeed } from '../../wiki/feeds.ts';
import { currentRecords, history } from '../../wiki/releases.ts';

export const GET: APIRoute = ({ site }) => {
  const body = atomFeed(releaseViews(history, currentRecords), site?.origin);
  return new Response(body, { headers: { 'Content-Type': 'application/atom+xml; charset=utf-8' } });
};
