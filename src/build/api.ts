// Emits the prebuilt API: one envelope per list, name key, alias key and level of every
// kind, one not-found envelope per kind, each kind's suggestion index, the same again for
// each data release below api/releases/<id>/, the list of releases, the edge's fixed error
// bodies, each with its br and gzip variants (emit.ts), and the manifest that lists them all.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXED_BODIES, notFoundBody, RELEASE_NOUN, successBody } from '../contract/messages.ts';
import {
  fixedBodyPath,
  levelPath,
  listPath,
  MANIFEST_FILE,
  namePath,
  notFoundPath,
  pinnedPath,
  RELEASES_LIST_PATH,
} from '../contract/paths.ts';
import type { BuildManifest, Manifest } from '../schema/manifest.ts';
import { kinds } from '../schema/kinds.ts';
import { countsOf, type Content, type ContentEntry } from './content.ts';
import { emitFiles, type ApiFile } from './emit.ts';
import { suggestFiles } from './suggest-index.ts';
import { releaseSummaries, withFormerNames, type Release } from './releases.ts';

export type { ApiFile } from './emit.ts';

/** Every API file of the content, in a fixed order. */
export function* apiFiles(content: Content): Generator<ApiFile> {
  for (const kind of kinds) {
    const entries = content.entries[kind.id];
    yield {
      path: listPath(kind.id),
      body: successBody(
        kind.noun,
        entries.map((entry) => entry.record),
      ),
    };
    yield { path: notFoundPath(kind.id), body: notFoundBody(kind.noun) };
    // Entries are in list order, so each level's records keep that order.
    const byLevel = new Map<number, ContentEntry[]>();
    for (const entry of entries) byLevel.set(entry.data.level, [...(byLevel.get(entry.data.level) ?? []), entry]);
    for (const [level, group] of byLevel) {
      yield {
        path: levelPath(kind.id, level),
        body: successBody(
          kind.noun,
          group.map((entry) => entry.record),
        ),
      };
    }
    for (const entry of entries) {
      if (entry.keys.length === 0) continue;
      const body = successBody(kind.noun, [entry.record]);
      for (const key of new Set(entry.keys)) yield { path: namePath(kind.id, key), body };
    }
    yield* suggestFiles(kind, entries);
  }
}

/** The bodies the edge answers errors with, which belong to no query. */
export function* fixedBodyFiles(): Generator<ApiFile> {
  for (const { name, body } of FIXED_BODIES) yield { path: fixedBodyPath(name), body };
}

/**
 * Every file the API serves: the current content's answers, each release's answers below
 * its own prefix (a release's files come from its snapshot and the releases before it only,
 * so they never change), and GET /api/releases. Records keep every name they were released
 * under as an alias, so a renamed record stays findable by its old name.
 */
export function* publishedApiFiles(content: Content, releases: readonly Release[] = []): Generator<ApiFile> {
  const snapshots = releases.map((release) => release.content);
  yield* apiFiles(withFormerNames(content, snapshots));
  for (const [index, release] of releases.entries()) {
    for (const file of apiFiles(withFormerNames(release.content, snapshots.slice(0, index))))
      yield { ...file, path: pinnedPath(file.path, release.id) };
  }
  yield { path: RELEASES_LIST_PATH, body: successBody(RELEASE_NOUN, releaseSummaries(releases)) };
}

/** The releases as the manifest lists them: newest first, id and data version. */
export const manifestReleases = (releases: readonly Release[]): Manifest['releases'] =>
  releases.map(({ id, version }) => ({ id, version })).reverse();

/** Writes every API file, its variants and the manifest below `outDir`; returns the manifest. */
export async function emitApi(
  content: Content,
  outDir: string,
  releases: readonly Release[] = [],
): Promise<BuildManifest> {
  function* everyFile() {
    yield* fixedBodyFiles();
    yield* publishedApiFiles(content, releases);
  }
  const { files, index } = await emitFiles(everyFile(), outDir);
  const manifest: BuildManifest = {
    version: content.version,
    counts: countsOf(content),
    files,
    index,
    releases: manifestReleases(releases),
  };
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
  return manifest;
}
