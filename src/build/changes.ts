// What changed between two contents (releases, or the latest release and the unreleased
// content): records matched by kind and slug, so a rename is a changed name; per field,
// the value before and after. The entries keep the slug, for the wiki's links.
import { kinds, type KindId } from '../schema/kinds.ts';
import type { ChangedRecord, FieldChange, ReleaseChanges } from '../schema/releases.ts';
import type { Content, ContentEntry } from './content.ts';

export interface RecordRef extends ChangedRecord {
  slug: string;
}

export interface RecordChange extends RecordRef {
  fields: Record<string, FieldChange>;
}

export interface Changes {
  added: RecordRef[];
  removed: RecordRef[];
  changed: RecordChange[];
}

const refOf = (kind: KindId, entry: ContentEntry): RecordRef => ({
  kind,
  ...('name' in entry.data ? { name: entry.data.name } : {}),
  level: entry.data.level,
  slug: entry.slug,
});

/**
 * The changes from `before` (none: everything is added) to `after`, by kind in registry
 * order, each kind's records in list order (removed ones in the order they had before).
 */
export function changesBetween(before: Content | undefined, after: Content): Changes {
  const changes: Changes = { added: [], removed: [], changed: [] };
  for (const kind of kinds) {
    const earlier = new Map((before?.entries[kind.id] ?? []).map((entry) => [entry.slug, entry]));
    const later = new Set(after.entries[kind.id].map((entry) => entry.slug));
    for (const entry of after.entries[kind.id]) {
      const old = earlier.get(entry.slug);
      if (!old) {
        changes.added.push(refOf(kind.id, entry));
        continue;
      }
      const fields = fieldChanges(Object.keys(kind.contentSchema.shape), old, entry);
      if (Object.keys(fields).length > 0) changes.changed.push({ ...refOf(kind.id, entry), fields });
    }
    for (const [slug, entry] of earlier) if (!later.has(slug)) changes.removed.push(refOf(kind.id, entry));
  }
  return changes;
}

/** Each field (in the schema's order) whose value differs; an absent field is null. */
function fieldChanges(fields: string[], before: ContentEntry, after: ContentEntry): Record<string, FieldChange> {
  const from = before.data as Record<string, unknown>;
  const to = after.data as Record<string, unknown>;
  const changed: Record<string, FieldChange> = {};
  for (const field of fields) {
    if (JSON.stringify(from[field]) !== JSON.stringify(to[field]))
      changed[field] = { from: from[field] ?? null, to: to[field] ?? null };
  }
  return changed;
}

export const hasChanges = (changes: Changes): boolean =>
  changes.added.length + changes.removed.length + changes.changed.length > 0;

/** The changes as GET /api/releases shows them: without the slugs. */
export function publicChanges(changes: Changes): ReleaseChanges {
  const strip = <T extends RecordRef>({ slug: _slug, ...rest }: T): Omit<T, 'slug'> => rest;
  return { added: changes.added.map(strip), removed: changes.removed.map(strip), changed: changes.changed.map(strip) };
}
