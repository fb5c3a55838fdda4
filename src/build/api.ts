// Emits the prebuilt API: one envelope per list, name key, alias key and level of every
// kind, one not-found envelope per kind, the edge's fixed error bodies, each with its br and
// gzip variants (emit.ts), and the manifest that lists them all.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXED_BODIES, notFoundBody, successBody } from '../contract/messages.ts';
import { fixedBodyPath, levelPath, listPath, MANIFEST_FILE, namePath, notFoundPath } from '../contract/paths.ts';
import type { BuildManifest } from '../schema/manifest.ts';
import { kinds } from '../schema/kinds.ts';
import { countsOf, type Content, type ContentEntry } from './content.ts';
import { emitFiles, type ApiFile } from './emit.ts';

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
  }
}

/** The bodies the edge answers errors with, which belong to no query. */
export function* fixedBodyFiles(): Generator<ApiFile> {
  for (const { name, body } of FIXED_BODIES) yield { path: fixedBodyPath(name), body };
}

/** Writes every API file, its variants and the manifest below `outDir`; returns the manifest. */
export async function emitApi(content: Content, outDir: string): Promise<BuildManifest> {
  function* everyFile() {
    yield* fixedBodyFiles();
    yield* apiFiles(content);
  }
  const files = await emitFiles(everyFile(), outDir);
  const manifest: BuildManifest = { version: content.version, counts: countsOf(content), files };
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
  return manifest;
}
