// Data releases: frozen, dated copies of the validated content in releases/<id>.json, one
// file per release, never rewritten. Each file carries the sha256 of its data and of the
// release before it, so an edit after the fact fails the build naming the file. From them
// the build derives what changed between releases and each release's own API.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { byReleaseOrder, releaseIdParts } from '../schema/release-ids.ts';
import { searchKey } from '../contract/search-key.ts';
import { kinds, type KindId } from '../schema/kinds.ts';
import {
  type ReleaseFields,
  releaseFieldsOf,
  releaseFileSchema,
  type ReleaseFile,
  type ReleaseSummary,
} from '../schema/releases.ts';
import { sha256HexSync } from './hash.ts';
import { changesBetween, hasChanges, publicChanges, type Changes } from './changes.ts';
import {
  type Content,
  type ContentData,
  type ContentEntry,
  ContentError,
  type ContentIssue,
  countsOf,
  namesOf,
  validateKind,
} from './content.ts';
import { buildSettings, dataFolder } from './settings.ts';

/** The folder of the project that holds the releases. */
export const RELEASES_FOLDER = 'releases';

/** The folder holding content/ and releases/: the project's, or TREEFARM_DATA_DIR (tests build copies). */
export const dataDirOf = (projectDir: string): string => dataFolder(buildSettings(), projectDir);

/** The content/ folder a build of the project at `root` (a path, or Astro's root URL) reads. */
export const contentDirOf = (root: string | URL): string =>
  join(dataDirOf(root instanceof URL ? fileURLToPath(root) : root), 'content');

/** A release as the build holds it: its fields (the data version the content had when released), and its content. */
export interface Release extends ReleaseFields {
  /** The sha256 of this release's data, and of the release before it (null for the first). */
  sha256: string;
  previous: string | null;
  /** Path relative to the project, for messages. */
  file: string;
  /** The released records, validated as content is. */
  content: Content;
}

/** Everything of a release file that its sha256 covers, in a fixed key order. */
export type ReleaseData = Omit<ReleaseFile, 'sha256'>;

/** The sha256 of a release's data: the compact JSON of its fields in their fixed order. */
export function releaseDigest(data: ReleaseData): string {
  const { id, date, notes, version, previous, records } = data;
  const canonical = JSON.stringify({ id, date, notes, version, previous, records });
  return sha256HexSync(canonical);
}

/** The records of a content as a release keeps them: by kind, in list order, slug and data. */
export function snapshotOf(content: Content): ReleaseFile['records'] {
  const records = {} as ReleaseFile['records'];
  for (const kind of kinds) {
    records[kind.id] = content.entries[kind.id].map((entry) => ({ slug: entry.slug, data: { ...entry.data } }));
  }
  return records;
}

/** Whether two contents hold the same records (the data version aside). */
export function sameRecords(a: Content, b: Content): boolean {
  return JSON.stringify(snapshotOf(a)) === JSON.stringify(snapshotOf(b));
}

/**
 * Reads, checks and validates every release below `projectDir`, oldest first. Throws a
 * ContentError naming each file at fault: not a release, edited after it was made (its
 * sha256, or the chain of sha256s), or records the schemas no longer accept.
 */
export function loadReleases(projectDir: string): Release[] {
  const dir = join(projectDir, RELEASES_FOLDER);
  if (!existsSync(dir)) return [];
  const issues: ContentIssue[] = [];
  const releases: Release[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue; // a release being written (temp file), or the system's
    const file = `${RELEASES_FOLDER}/${name}`;
    const release = readRelease(join(dir, name), file, issues);
    if (release) releases.push(release);
  }
  releases.sort((a, b) => byReleaseOrder(partsOf(a.id), partsOf(b.id)));
  releases.forEach((release, index) => {
    if (release.previous !== (releases[index - 1]?.sha256 ?? null))
      issues.push({
        file: release.file,
        field: 'previous',
        message:
          `does not match the release before it (${releases[index - 1]?.file ?? 'none'}): ` +
          'a release was edited, removed or added out of order',
      });
  });
  if (issues.length > 0) throw new ContentError(issues, 'The releases');
  return releases;
}

const partsOf = (id: string) => releaseIdParts(id) ?? { date: id, sequence: 0 };

function readRelease(path: string, file: string, issues: ContentIssue[]): Release | undefined {
  if (!file.endsWith('.json')) {
    issues.push({ file, message: 'not a release file: releases are <id>.json, written by npm run release' });
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    issues.push({ file, message: `malformed JSON: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = releaseFileSchema.safeParse(json);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      issues.push({ file, field: issue.path.join('.') || undefined, message: issue.message });
    return undefined;
  }
  const { sha256, ...data } = parsed.data;
  const before = issues.length;
  if (releaseDigest(data) !== sha256)
    issues.push({
      file,
      message: 'was edited after the release was made: its data no longer matches its sha256; restore it from git',
    });
  if (file !== `${RELEASES_FOLDER}/${data.id}.json`)
    issues.push({ file, field: 'id', message: `the file of release ${data.id} is ${data.id}.json` });
  if (releaseIdParts(data.id)?.date !== data.date)
    issues.push({ file, field: 'date', message: `expected the date of the id (${data.id}), got ${data.date}` });
  const content = releasedContent(data, file, issues);
  return issues.length === before ? { ...data, sha256, file, content } : undefined;
}

/** The release's records validated with the content schemas; its version is the recorded one. */
function releasedContent(data: ReleaseData, file: string, issues: ContentIssue[]): Content {
  const entries = {} as Record<KindId, ContentEntry[]>;
  for (const kind of kinds) {
    const sources = data.records[kind.id].map(({ slug, data: value }) => ({
      slug,
      file: `${file}: ${kind.id}/${slug}`,
      value,
    }));
    entries[kind.id] = validateKind(kind, sources, issues);
  }
  return { version: data.version, entries };
}

/**
 * The content with the names its records had in `earlier` releases (oldest first) added as
 * aliases, so a renamed record stays findable by every name it was released under. A former
 * name whose key a current name or alias (of any record of the kind) holds is left out: the
 * record that has the name now wins. Nearer releases are asked first.
 */
export function withFormerNames(content: Content, earlier: readonly Content[]): Content {
  if (earlier.length === 0) return content;
  const entries = {} as Record<KindId, ContentEntry[]>;
  for (const kind of kinds) {
    const current = content.entries[kind.id];
    const slugs = new Set(current.map((entry) => entry.slug));
    const taken = new Set(current.flatMap((entry) => entry.keys));
    const former = new Map<string, string[]>();
    for (const past of [...earlier].reverse()) {
      for (const entry of past.entries[kind.id]) {
        if (!slugs.has(entry.slug)) continue;
        for (const name of namesOf(entry.data)) {
          const key = searchKey(name);
          if (key === '' || taken.has(key)) continue;
          taken.add(key);
          former.set(entry.slug, [...(former.get(entry.slug) ?? []), name]);
        }
      }
    }
    entries[kind.id] = current.map((entry) => withAliases(entry, former.get(entry.slug) ?? []));
  }
  return { version: content.version, entries };
}

function withAliases(entry: ContentEntry, names: string[]): ContentEntry {
  if (names.length === 0) return entry;
  const data = entry.data as ContentData & { aliases?: string[] };
  const aliases = [...(data.aliases ?? []), ...names];
  return { ...entry, data: { ...data, aliases } as ContentData, keys: [...entry.keys, ...names.map(searchKey)] };
}

export interface ReleaseHistory {
  /** Oldest first, each with its changes against the release before it. */
  releases: (Release & { changes: Changes })[];
  /** The content's changes against the latest release (all of it when none): not yet released. */
  unreleased: Changes | undefined;
}

export function releaseHistory(releases: readonly Release[], current: Content): ReleaseHistory {
  const unreleased = changesBetween(releases.at(-1)?.content, current);
  return {
    releases: releases.map((release, index) => ({
      ...release,
      changes: changesBetween(releases[index - 1]?.content, release.content),
    })),
    unreleased: hasChanges(unreleased) ? unreleased : undefined,
  };
}

/** The entries of GET /api/releases: newest first, each with its changes against the one before. */
export function releaseSummaries(releases: readonly Release[]): ReleaseSummary[] {
  return releases
    .map((release, index) => ({
      ...releaseFieldsOf(release),
      counts: countsOf(release.content),
      changes: publicChanges(changesBetween(releases[index - 1]?.content, release.content)),
    }))
    .reverse();
}
