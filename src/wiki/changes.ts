// What the Changes page, the release pages, the record pages' History and the feeds show:
// the releases and the unreleased edits as plain rows of text. Pure functions over the
// release history, so the tests can check them.
import type { Changes, RecordRef } from '../build/changes.ts';
import type { ReleaseEntry } from '../build/wiki-data.ts';
import { kindById, kindTitle, type KindId } from '../schema/kinds.ts';
import { type ReleaseFields, releaseFieldsOf } from '../schema/releases.ts';
import { fieldFormat, formatValue } from '../contract/figures.ts';
import { CHANGES_PATH, recordPath, releasePath } from './site.ts';

export interface RecordRow {
  kind: string;
  title: string;
  /** The record's page, when it still has one. */
  href?: string;
  level: number;
}

export interface FieldRow extends RecordRow {
  field: string;
  from: string;
  to: string;
}

export interface ChangeTables {
  added: RecordRow[];
  removed: RecordRow[];
  changed: FieldRow[];
  /** "3 added, 1 removed, 2 changed". */
  summary: string;
}

export interface ReleaseView extends ChangeTables, ReleaseFields {
  /** The release's own page. */
  href: string;
}

/** What a History is made from: each release's id, date and changes, and the unreleased ones. */
export interface ChangeHistory {
  releases: readonly Pick<ReleaseEntry, 'id' | 'date' | 'changes'>[];
  unreleased?: Changes | undefined;
}

/** One line of a record's History: a release (or the unreleased content) and what it did to the record. */
export interface HistoryRow {
  /** The release id, or "Not yet released". */
  release: string;
  href: string;
  date?: string;
  what: string;
}

/** The heading of a record in a change: its name, or "Level 3 plot" for kinds without names. */
const titleOf = (ref: RecordRef) => ref.name ?? `Level ${ref.level} ${kindById(ref.kind)?.noun ?? ref.kind}`;

function rowOf(ref: RecordRef, current: ReadonlySet<string>): RecordRow {
  const href = current.has(`${ref.kind}/${ref.slug}`) ? recordPath(ref.kind, ref.slug) : undefined;
  return { kind: kindTitle(ref.kind), title: titleOf(ref), ...(href ? { href } : {}), level: ref.level };
}

/** The changes as tables; `current` holds "kind/slug" of the records that have a page now. */
export function changeTables(changes: Changes, current: ReadonlySet<string>): ChangeTables {
  const { added, removed, changed } = changes;
  return {
    added: added.map((ref) => rowOf(ref, current)),
    removed: removed.map((ref) => rowOf(ref, current)),
    changed: changed.flatMap((change) =>
      Object.entries(change.fields).map(([field, { from, to }]) => ({
        ...rowOf(change, current),
        field: fieldFormat(change.kind, field).label,
        from: formatValue(change.kind, field, from),
        to: formatValue(change.kind, field, to),
      })),
    ),
    summary: `${added.length} added, ${removed.length} removed, ${changed.length} changed`,
  };
}

/** Every release, newest first, as the Changes page and the feeds show it. */
export function releaseViews(
  history: { releases: readonly ReleaseEntry[] },
  current: ReadonlySet<string>,
): ReleaseView[] {
  return history.releases
    .map((release) => ({
      ...releaseFieldsOf(release),
      href: releasePath(release.id),
      ...changeTables(release.changes, current),
    }))
    .reverse();
}

/** What a change did to a record's fields, in words. */
function fieldsChanged(kind: KindId, fields: Changes['changed'][number]['fields']): string {
  return Object.entries(fields)
    .map(([field, { from, to }]) => {
      const label = fieldFormat(kind, field).label;
      return `${label}: ${formatValue(kind, field, from)} → ${formatValue(kind, field, to)}`;
    })
    .join('; ');
}

/** The rows one set of changes adds to the History of each record it added or changed, by "kind/slug". */
function addRows(rows: Map<string, HistoryRow[]>, changes: Changes, row: Omit<HistoryRow, 'what'>): void {
  const add = (ref: RecordRef, what: string) => {
    const key = `${ref.kind}/${ref.slug}`;
    rows.set(key, [...(rows.get(key) ?? []), { ...row, what }]);
  };
  for (const ref of changes.added) add(ref, 'Added');
  for (const change of changes.changed) add(change, fieldsChanged(change.kind, change.fields));
}

/**
 * Every record's History, by "kind/slug": the releases that changed it, newest first, after
 * its unreleased change if any. Made once, so each record page only looks its rows up.
 */
export function recordHistories(history: ChangeHistory): Map<string, HistoryRow[]> {
  const rows = new Map<string, HistoryRow[]>();
  if (history.unreleased)
    addRows(rows, history.unreleased, { release: 'Not yet released', href: `${CHANGES_PATH}#unreleased` });
  for (const release of [...history.releases].reverse())
    addRows(rows, release.changes, { release: release.id, href: releasePath(release.id), date: release.date });
  return rows;
}
