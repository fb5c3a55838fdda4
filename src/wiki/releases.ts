// The release history the wiki shows, as the build's integration hands it over
// (virtual:treefarm/build): the releases with their changes, the unreleased edits, the
// current records, and each record's History rows, worked out once per build.
import site from 'virtual:treefarm/build';
import { type HistoryRow, recordHistories } from './changes.ts';

export const history = site.history;

/** "kind/slug" of every record that has a page. */
export const currentRecords: ReadonlySet<string> = new Set(site.records);

/** Each record's History rows, by "kind/slug". */
export const histories: ReadonlyMap<string, HistoryRow[]> = recordHistories(history);

/** The offline bundles of this build, with the data version and the counts. */
export const latestDownloads = site.latest;
