// The feeds of the data releases: Atom (RFC 4287) and JSON Feed 1.1, newest first, each
// entry linking to its release's page. Absolute URLs on the site's origin (SITE_ORIGIN) when it
// is set; without it links are relative (a reader resolves them against the feed's own URL) and
// Atom's ids, which must be absolute, are names of this data set's own (`urn:treefarm-data:…`).
import type { ReleaseView } from './changes.ts';
import { escapeXml } from './markup.ts';
import { ATOM_FEED_PATH, CHANGES_PATH, JSON_FEED_PATH, SITE_NAME } from './site.ts';

export const FEED_TITLE = `${SITE_NAME}: data releases`;
const FEED_DESCRIPTION = 'Every data release of the tree farm data, with what changed in it.';

/** A release's date as a time: releases are dated by their UTC day. */
const timeOf = (date: string) => `${date}T00:00:00Z`;

/** A path of the site as the feeds write it: absolute on the origin, or as it is without one. */
const urlOf = (path: string, origin: string | undefined) => (origin === undefined ? path : new URL(path, origin).href);

/** An Atom id for a path of the site: its URL, or without an origin a name of the data set's own. */
const atomId = (path: string, origin: string | undefined) =>
  origin === undefined ? `urn:treefarm-data:${path}` : new URL(path, origin).href;

/** The changes of a release as a short HTML list, for feed readers. */
function releaseHtml(release: ReleaseView, origin: string | undefined): string {
  const link = (row: { title: string; href?: string }) =>
    row.href ? `<a href="${escapeXml(urlOf(row.href, origin))}">${escapeXml(row.title)}</a>` : escapeXml(row.title);
  const items = [
    ...release.changed.map(
      (row) => `${link(row)} (${row.kind}): ${escapeXml(row.field)} ${escapeXml(row.from)} → ${escapeXml(row.to)}`,
    ),
    ...release.added.map((row) => `${link(row)} (${row.kind}, level ${row.level}): added`),
    ...release.removed.map((row) => `${link(row)} (${row.kind}, level ${row.level}): removed`),
  ];
  const list = items.length > 0 ? `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>` : '';
  return `<p>${escapeXml(release.notes)}</p><p>${escapeXml(release.summary)}.</p>${list}`;
}

export function atomFeed(releases: readonly ReleaseView[], origin: string | undefined): string {
  const url = (path: string) => escapeXml(urlOf(path, origin));
  const id = (path: string) => escapeXml(atomId(path, origin));
  const updated = timeOf(releases[0]?.date ?? '1970-01-01');
  const entries = releases.map(
    (release) => `  <entry>
    <id>${id(release.href)}</id>
    <title>Release ${escapeXml(release.id)}</title>
    <updated>${timeOf(release.date)}</updated>
    <link rel="alternate" type="text/html" href="${url(release.href)}"/>
    <summary>${escapeXml(`${release.notes} (${release.summary})`)}</summary>
    <content type="html">${escapeXml(releaseHtml(release, origin))}</content>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${id(CHANGES_PATH)}</id>
  <title>${escapeXml(FEED_TITLE)}</title>
  <subtitle>${escapeXml(FEED_DESCRIPTION)}</subtitle>
  <updated>${updated}</updated>
  <author><name>${escapeXml(SITE_NAME)}</name></author>
  <link rel="self" type="application/atom+xml" href="${url(ATOM_FEED_PATH)}"/>
  <link rel="alternate" type="text/html" href="${url(CHANGES_PATH)}"/>
${entries.join('\n')}
</feed>
`;
}

export function jsonFeed(releases: readonly ReleaseView[], origin: string | undefined): string {
  const url = (path: string) => urlOf(path, origin);
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: FEED_TITLE,
    description: FEED_DESCRIPTION,
    home_page_url: url(CHANGES_PATH),
    feed_url: url(JSON_FEED_PATH),
    language: 'en',
    authors: [{ name: SITE_NAME }],
    items: releases.map((release) => ({
      id: url(release.href),
      url: url(release.href),
      title: `Release ${release.id}`,
      summary: `${release.notes} (${release.summary})`,
      content_html: releaseHtml(release, origin),
      date_published: timeOf(release.date),
    })),
  };
  return `${JSON.stringify(feed, null, 2)}\n`;
}
