// The interface both clients share: one method per kind, each taking the API's `search`, and
// suggest(kind, text) for autocomplete.
import type { Suggestion } from '../contract/suggest.ts';
import { kindIds, type KindId, type RecordsByKind } from '../schema/kinds.ts';

/** A name, alias or level; absent or null for the whole list. Interpreted as the API's `search`. */
export type Search = string | number | null | undefined;

export type TreefarmData = { [Id in KindId]: (search?: Search) => Promise<RecordsByKind[Id][]> } & {
  /** Up to 25 suggestions for what a user typed so far (GET /api/{kind}/suggest); [] when nothing matches. */
  suggest(kind: KindId, text?: Search): Promise<Suggestion[]>;
};

/** `search` as the text the API would see, or null. */
const asSearch = (search: Search) => (search == null ? null : String(search));

/** Builds the interface over one lookup per endpoint: records, and suggestions. */
export function dataClient(
  lookup: (kind: KindId, search: string | null) => Promise<unknown[]>,
  suggest: (kind: KindId, text: string | null) => Promise<Suggestion[]>,
): TreefarmData {
  const methods = kindIds.map((kind) => [kind, (search?: Search) => lookup(kind, asSearch(search))]);
  return {
    ...(Object.fromEntries(methods) as { [Id in KindId]: (search?: Search) => Promise<RecordsByKind[Id][]> }),
    suggest: (kind, text) => suggest(kind, asSearch(text)),
  };
}

/** The body of every API answer. */
export interface Envelope {
  error: boolean;
  message: string;
  data?: unknown[];
}
