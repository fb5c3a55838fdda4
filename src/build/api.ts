// The prebuilt API as routes: for the current data and for each data release, every route of
// the routing index (src/contract/paths.ts) with the body that answers it: one envelope per
// list, name key, alias key and level of every kind, one not-found envelope per kind, each
// kind's suggestion index, and (current data only) the list of releases, the edge's fixed
// error bodies and each kind's wiki pages. emit.ts stores each distinct body once; bundles.ts
// puts the same routes in the offline bundles.
import { FIXED_BODIES, notFoundBody, RELEASE_NOUN, successBody } from '../contract/messages.ts';
import {
  fixedRoute,
  levelRoute,
  listRoute,
  nameRoute,
  notFoundRoute,
  pagesRoute,
  RELEASES_ROUTE,
} from '../contract/paths.ts';
import { pagesBody } from '../contract/record-pages.ts';
import type { Manifest } from '../schema/manifest.ts';
import { kinds } from '../schema/kinds.ts';
import type { ApiRoute } from './api-route.ts';
import { mcpViewRoutes } from './mcp-views.ts';
import type { Content, ContentEntry } from './content.ts';
import { buildSettings } from './settings.ts';
import { type NearShardsOf, type SuggestRoutes, suggestRoutes, suggestRoutesKeepingLast } from './suggest-index.ts';
import { releaseSummaries, withFormerNames, type Release } from './releases.ts';

/** The routes of one scope: the current data (release undefined) or one release. */
export interface ApiScope {
  release: string | undefined;
  version: string;
  routes: Iterable<ApiRoute>;
}

/** Every route of the content's kinds, in a fixed order; `suggestions` makes each kind's suggestion routes. */
export function* kindRoutes(content: Content, suggestions: SuggestRoutes = suggestRoutes): Generator<ApiRoute> {
  for (const kind of kinds) {
    const entries = content.entries[kind.id];
    yield {
      route: listRoute(kind.id),
      body: successBody(
        kind.noun,
        entries.map((entry) => entry.record),
      ),
    };
    yield { route: notFoundRoute(kind.id), body: notFoundBody(kind.noun) };
    // Entries are in list order, so each level's records keep that order.
    const byLevel = new Map<number, ContentEntry[]>();
    for (const entry of entries) {
      const group = byLevel.get(entry.data.level);
      if (group) group.push(entry);
      else byLevel.set(entry.data.level, [entry]);
    }
    for (const [level, group] of byLevel) {
      yield {
        route: levelRoute(kind.id, level),
        body: successBody(
          kind.noun,
          group.map((entry) => entry.record),
        ),
      };
    }
    for (const entry of entries) {
      if (entry.keys.length === 0) continue;
      const body = successBody(kind.noun, [entry.record]);
      for (const key of new Set(entry.keys)) yield { route: nameRoute(kind.id, key), body };
    }
    yield* suggestions(kind, entries);
  }
}

/** The bodies the edge answers errors with, which belong to no query. */
export function* fixedBodyRoutes(): Generator<ApiRoute> {
  for (const { name, body } of FIXED_BODIES) yield { route: fixedRoute(name), body };
}

/**
 * Each kind's wiki pages (src/contract/record-pages.ts), and the site's public origin when the
 * build has one (SITE_ORIGIN): read by the edge, never sent.
 */
export function* pageRoutes(content: Content, origin = buildSettings().siteOrigin): Generator<ApiRoute> {
  for (const kind of kinds) {
    const pages = content.entries[kind.id].map(({ slug, data }) => ({
      slug,
      level: data.level,
      name: nameOf(data),
      aliases: 'aliases' in data ? data.aliases : undefined,
    }));
    yield { route: pagesRoute(kind.id), body: pagesBody(pages, origin), indexOnly: true };
  }
}

const nameOf = (data: object): string | undefined =>
  'name' in data && typeof data.name === 'string' ? data.name : undefined;

/**
 * Every scope the API answers from: the current data, with the fixed bodies and GET
 * /api/releases, then each release (its answers come from its snapshot and the releases
 * before it only, so they never change). Records keep every name they were released under as
 * an alias, so a renamed record stays findable by its old name. Lazy: one scope's routes are
 * made while they are read. `nearShardsOf`: the build's near-miss shards (nearShardsKeepingFirst),
 * which its bundles and its API both read; made here by default.
 */
export function publishedScopes(
  content: Content,
  releases: readonly Release[] = [],
  nearShardsOf?: NearShardsOf,
): ApiScope[] {
  const snapshots = releases.map((release) => release.content);
  // Releases mostly change figures, not names or levels: their suggestion indexes repeat.
  const suggestions = suggestRoutesKeepingLast(nearShardsOf);
  function* current(): Generator<ApiRoute> {
    yield* fixedBodyRoutes();
    yield* kindRoutes(withFormerNames(content, snapshots), suggestions);
    yield { route: RELEASES_ROUTE, body: successBody(RELEASE_NOUN, releaseSummaries(releases)) };
    yield* pageRoutes(content);
    yield* mcpViewRoutes();
  }
  return [
    { release: undefined, version: content.version, routes: current() },
    ...releases.map((release, index) => ({
      release: release.id,
      version: release.version,
      routes: {
        [Symbol.iterator]: () => kindRoutes(withFormerNames(release.content, snapshots.slice(0, index)), suggestions),
      },
    })),
  ];
}

/** The releases as the manifests list them: newest first, id and data version. */
export const manifestReleases = (releases: readonly Release[]): Manifest['releases'] =>
  releases.map(({ id, version }) => ({ id, version })).reverse();
