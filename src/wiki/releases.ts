// The release history the wiki shows: the build session's content and releases (the same
// load the API build uses), with the changes of each release worked out once per build.
import { root } from 'astro:config/server';
import type { Content } from '../build/content.ts';
import { contentDirOf, releaseHistory, type ReleaseHistory } from '../build/releases.ts';
import { buildContent, buildReleases } from '../build/session.ts';
import { type HistoryRow, recordHistories } from './changes.ts';

export interface SiteHistory {
  contentDir: string;
  content: Content;
  history: ReleaseHistory;
  /** Each record's History rows, by "kind/slug". */
  histories: Map<string, HistoryRow[]>;
}

let made: { content: Content; site: SiteHistory } | undefined;

export async function siteHistory(): Promise<SiteHistory> {
  const contentDir = contentDirOf(root);
  const content = buildContent(contentDir);
  if (made?.content !== content) {
    const history = releaseHistory(buildReleases(contentDir), content);
    made = { content, site: { contentDir, content, history, histories: recordHistories(history) } };
  }
  return made.site;
}

/** "kind/slug" of every record that has a page. */
export const currentRecords = (content: Content): Set<string> =>
  new Set(Object.entries(content.entries).flatMap(([kind, entries]) => entries.map((e) => `${kind}/${e.slug}`)));
