// Emits the prebuilt API: one envelope per list, name key, alias key and level of every
// kind, one not-found envelope per kind, each kind's suggestion index, and the manifest
// that lists them all.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { notFoundBody, successBody } from '../contract/messages.ts';
import { levelPath, listPath, MANIFEST_FILE, namePath, notFoundPath } from '../contract/paths.ts';
import type { Manifest } from '../schema/manifest.ts';
import { kinds } from '../schema/kinds.ts';
import { countsOf, type Content, type ContentEntry } from './content.ts';
import { suggestFiles } from './suggest-index.ts';

export interface ApiFile {
  /** Path below dist/, forward slashes. */
  path: string;
  body: string;
}

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

/** Writes every API file and the manifest below `outDir`; returns the manifest. */
export function emitApi(content: Content, outDir: string): Manifest {
  const files: Manifest['files'] = {};
  const madeDirs = new Set<string>();
  for (const file of apiFiles(content)) {
    const bytes = Buffer.from(file.body, 'utf8');
    const target = join(outDir, file.path);
    const dir = dirname(target);
    if (!madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      madeDirs.add(dir);
    }
    writeFileSync(target, bytes);
    files[file.path] = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  }
  const manifest: Manifest = {
    version: content.version,
    counts: countsOf(content),
    files,
  };
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
  return manifest;
}
