// `npm run release`: records the validated content as a new data release, one new file in
// releases/, written whole or not at all and never over another. It refuses, writing
// nothing, when the content is invalid, a release was tampered with, or nothing changed.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { nextReleaseId, releaseIdParts } from '../schema/release-ids.ts';
import { type Changes, changesBetween, type RecordRef } from './changes.ts';
import { loadContent } from './content.ts';
import { loadReleases, releaseDigest, RELEASES_FOLDER, sameRecords, snapshotOf, type ReleaseData } from './releases.ts';

/** A release that was not made, and why; nothing was written. */
export class ReleaseRefused extends Error {
  override name = 'ReleaseRefused';
}

export interface MadeRelease {
  id: string;
  /** Relative to the data folder: `releases/<id>.json`. */
  file: string;
  /** One line for the maintainer. */
  summary: string;
  /** What changed, a line per record: `+ trees Oak Tree (level 1)`, `~ cutters Knife: cost 1120 -> 1200`. */
  changes: string[];
}

/** The release the content would make, checked as a real one is, with nothing written (--dry-run). */
export interface ReleaseOptions {
  now?: Date;
  dryRun?: boolean;
}

export function makeRelease(
  dataDir: string,
  notes: string,
  { now = new Date(), dryRun = false }: ReleaseOptions = {},
): MadeRelease {
  if (notes.trim() === '') throw new ReleaseRefused('Say what changed: npm run release -- --notes "..."');
  const content = loadContent(join(dataDir, 'content'), dataDir);
  const releases = loadReleases(dataDir);
  const latest = releases.at(-1);
  if (latest && sameRecords(latest.content, content))
    throw new ReleaseRefused(`The content is the same as the latest release, ${latest.id}: nothing to release.`);
  const date = now.toISOString().slice(0, 10);
  if (latest && latest.date > date)
    throw new ReleaseRefused(`The latest release, ${latest.id}, is dated after today (${date}): check the clock.`);
  const id = nextReleaseId(date, latest && releaseIdParts(latest.id));
  const data: ReleaseData = {
    id,
    date,
    notes: notes.trim(),
    version: content.version,
    previous: latest?.sha256 ?? null,
    records: snapshotOf(content),
  };
  const file = `${RELEASES_FOLDER}/${id}.json`;
  const path = join(dataDir, file);
  if (!dryRun) writeNew(path, `${JSON.stringify({ ...data, sha256: releaseDigest(data) }, null, 2)}\n`);
  const changes = changesBetween(latest?.content, content);
  const counted =
    `(data version ${content.version}): ${changes.added.length} added, ` +
    `${changes.removed.length} removed, ${changes.changed.length} changed`;
  return {
    id,
    file,
    summary: dryRun
      ? `Would release ${id} ${counted}, as ${file}; nothing was written (--dry-run).`
      : `Released ${id} ${counted}. Commit ${file}.`,
    changes: changeLines(changes),
  };
}

const named = ({ kind, name, level }: RecordRef) => `${kind} ${name ?? `level ${level}`}`;
const shown = (value: unknown) => (value === null ? 'none' : JSON.stringify(value));

function changeLines({ added, removed, changed }: Changes): string[] {
  return [
    ...added.map((record) => `+ ${named(record)}`),
    ...removed.map((record) => `- ${named(record)}`),
    ...changed.map(
      (record) =>
        `~ ${named(record)}: ${Object.entries(record.fields)
          .map(([field, { from, to }]) => `${field} ${shown(from)} -> ${shown(to)}`)
          .join(', ')}`,
    ),
  ];
}

/** Writes a temp file beside `path`, flushed, then links it as `path`, which fails if it exists. */
function writeNew(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const temp = join(path, '..', `.${process.pid}-${Date.now()}.tmp`);
  const descriptor = openSync(temp, 'wx');
  try {
    writeSync(descriptor, text);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ReleaseRefused(`${path} exists already: releases are never rewritten.`);
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}
