// The contract's section "Suggestions (autocomplete)" as a brute force over all records,
// written apart from src/contract/suggest.ts and the build's index, so tests can check the
// prebuilt answers and the near-miss merge against it.
import type { ContentEntry } from '../../src/build/content.ts';
import { searchKey } from '../../src/contract/search-key.ts';

export type ReferenceSuggestion = { name: string; level: number } | { level: number };

/** Edit distance where an edit inserts, deletes or replaces a character or swaps two neighbours. */
export function referenceDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const options = [at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1)];
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) options.push(at(i - 2, j - 2) + 1);
      const row = rows[i];
      if (row) row[j] = Math.min(...options);
    }
  }
  return at(a.length, b.length);
}

interface Keyed {
  entry: ContentEntry;
  nameKey: string | undefined;
  wordKeys: string[];
  aliasKeys: string[];
}

function keyed(entry: ContentEntry): Keyed {
  const name = 'name' in entry.data ? entry.data.name : undefined;
  const aliases = 'aliases' in entry.data ? (entry.data.aliases ?? []) : [];
  return {
    entry,
    nameKey: name === undefined ? undefined : searchKey(name),
    wordKeys: (name ?? '')
      .split(/[^\p{L}\p{N}\p{M}]+/u)
      .map(searchKey)
      .filter(Boolean),
    aliasKeys: aliases.map(searchKey),
  };
}

const shown = (entry: ContentEntry): ReferenceSuggestion =>
  'name' in entry.data ? { name: entry.data.name, level: entry.data.level } : { level: entry.data.level };

/** The records of group e for key `k`, each with its distance, nearer first then list order. */
function referenceNearMisses(records: readonly Keyed[], k: string): ContentEntry[] {
  const budget = k.length >= 8 ? 2 : k.length >= 4 ? 1 : 0;
  const found: { entry: ContentEntry; distance: number; position: number }[] = [];
  records.forEach((record, position) => {
    const keys = [...(record.nameKey === undefined ? [] : [record.nameKey]), ...record.wordKeys];
    const distance = Math.min(...keys.map((key) => referenceDistance(k, key)));
    if (distance <= budget) found.push({ entry: record.entry, distance, position });
  });
  return found.sort((a, b) => a.distance - b.distance || a.position - b.position).map(({ entry }) => entry);
}

/** What GET /api/{kind}/suggest?search=<search> answers over a kind's entries in list order (null: no parameter). */
export function referenceSuggestions(entries: readonly ContentEntry[], search: string | null): ReferenceSuggestion[] {
  const records = entries.map(keyed);
  const value = search?.trim() ?? '';
  if ([...value].length > 100) return [];
  if (value === '' || /^(null|undefined)$/i.test(value)) return records.slice(0, 25).map((r) => shown(r.entry));
  if (/^[0-9]+$/.test(value))
    return records
      .filter((r) => String(r.entry.data.level).startsWith(value))
      .slice(0, 25)
      .map((r) => shown(r.entry));
  const k = searchKey(value);
  if (k === '') return [];
  const groups: ((r: Keyed) => boolean)[] = [
    (r) => r.nameKey === k || r.aliasKeys.includes(k),
    (r) => r.nameKey?.startsWith(k) === true,
    (r) => r.wordKeys.some((word) => word.startsWith(k)),
    (r) => r.aliasKeys.some((alias) => alias.startsWith(k)),
  ];
  const listed: ContentEntry[] = [];
  for (const inGroup of groups) {
    for (const record of records) if (inGroup(record) && !listed.includes(record.entry)) listed.push(record.entry);
  }
  const answer = listed.length > 0 ? listed : referenceNearMisses(records, k);
  return answer.slice(0, 25).map(shown);
}
