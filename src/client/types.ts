// The interface both clients share: one method per kind, each taking the API's `search`.
import { kindIds, type KindId, type RecordsByKind } from '../schema/kinds.ts';

/** A name, alias or level; absent or null for the whole list. Interpreted as the API's `search`. */
export type Search = string | number | null | undefined;

export type TreefarmData = { [Id in KindId]: (search?: Search) => Promise<RecordsByKind[Id][]> };

/** Builds the interface over one lookup: `search` arrives as the text the API would see, or null. */
export function dataClient(lookup: (kind: KindId, search: string | null) => Promise<unknown[]>): TreefarmData {
  const methods = kindIds.map((kind) => [
    kind,
    (search?: Search) => lookup(kind, search == null ? null : String(search)),
  ]);
  return Object.fromEntries(methods) as TreefarmData;
}

/** The body of every API answer. */
export interface Envelope {
  error: boolean;
  message: string;
  data?: unknown[];
}
