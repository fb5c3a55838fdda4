// The release history the wiki shows, loaded once per build from the same folder the API
// build reads (content/ and releases/ of the project, or of TREEFARM_DATA_DIR).
import { root } from 'astro:config/server';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContent, type Content } from '../build/content.ts';
import { dataDirOf, loadReleases, releaseHistory, type ReleaseHistory } from '../build/releases.ts';

let loaded: Promise<{ content: Content; history: ReleaseHistory }> | undefined;

export function siteHistory(): Promise<{ content: Content; history: ReleaseHistory }> {
  loaded ??= Promise.resolve().then(() => {
    const dataDir = dataDirOf(fileURLToPath(root));
    const content = loadContent(join(dataDir, 'content'), dataDir);
    return { content, history: releaseHistory(loadReleases(dataDir), content) };
  });
  return loaded;
}

/** "kind/slug" of every record that has a page. */
export const currentRecords = (content: Content): Set<string> =>
  new Set(Object.entries(content.entries).flatMap(([kind, entries]) => entries.map((e) => `${kind}/${e.slug}`)));
