// What the build hands the wiki, as two virtual modules the integration serves (the way
// Starlight passes its validated config to its pages): the records of the content
// collections, and the site's facts (release history, current records, offline bundles).
// Both are JSON of the one load of the build (build-data.ts); nothing is read twice.
import type { ViteUserConfig } from 'astro';
import type { KindId } from '../schema/kinds.ts';
import { type ReleaseFields, releaseFieldsOf } from '../schema/releases.ts';
import type { Latest } from '../contract/bundle-layout.ts';
import type { BuildData } from './build-data.ts';
import type { Changes } from './changes.ts';
import type { ContentData } from './content.ts';
import { releaseHistory } from './releases.ts';

/** The content collections' records: what content.config.ts loads. */
export const RECORDS_MODULE = 'virtual:treefarm/records';
/** The facts the pages show beside the records. */
export const SITE_MODULE = 'virtual:treefarm/build';

/** Each kind's validated records, in list order, keyed by slug. */
export type CollectionRecords = Record<KindId, { slug: string; file: string; data: ContentData }[]>;

/** One data release as the wiki shows it, with its changes against the release before it. */
export interface ReleaseEntry extends ReleaseFields {
  changes: Changes;
}

export interface SiteData {
  /** "kind/slug" of every current record: the records that have a page. */
  records: string[];
  /** Oldest release first; `unreleased`: the content's changes since the latest release. */
  history: { releases: ReleaseEntry[]; unreleased?: Changes };
  /** The offline bundles this build writes to dist/downloads/. */
  latest: Latest;
}

export function collectionRecords({ content }: BuildData): CollectionRecords {
  const entries = Object.entries(content.entries).map(([kind, list]) => [
    kind,
    list.map(({ slug, file, data }) => ({ slug, file, data })),
  ]);
  return Object.fromEntries(entries) as CollectionRecords;
}

export function siteData({ content, releases }: BuildData, latest: Latest): SiteData {
  const history = releaseHistory(releases, content);
  return {
    records: Object.entries(content.entries).flatMap(([kind, list]) => list.map((entry) => `${kind}/${entry.slug}`)),
    history: {
      releases: history.releases.map((release) => ({ ...releaseFieldsOf(release), changes: release.changes })),
      ...(history.unreleased ? { unreleased: history.unreleased } : {}),
    },
    latest,
  };
}

type VitePlugin = NonNullable<ViteUserConfig['plugins']>[number];

/** A module of one JSON value: parsed by JSON.parse, which is quicker than a JS literal of the same size. */
const jsonModule = (value: unknown) => `export default JSON.parse(${JSON.stringify(JSON.stringify(value))});\n`;

/**
 * The Vite plugin serving both modules. Each is made when first imported: a sync that only
 * loads the collections never makes the site's facts (which need the offline bundles).
 */
export function wikiDataPlugin(modules: {
  records: () => CollectionRecords;
  site: () => Promise<SiteData>;
}): VitePlugin {
  const resolved = new Map<string, () => unknown>([
    [`\0${RECORDS_MODULE}`, modules.records],
    [`\0${SITE_MODULE}`, modules.site],
  ]);
  return {
    name: 'treefarm-data:wiki-data',
    resolveId: (id) => (id === RECORDS_MODULE || id === SITE_MODULE ? `\0${id}` : undefined),
    load: async (id) => {
      const make = resolved.get(id);
      return make ? jsonModule(await make()) : undefined;
    },
  };
}
