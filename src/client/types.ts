// The interface both clients share: one method per kind, each taking the API's `search`.
import { kindIds, type KindId } from '../schema/kind-ids.ts';
import type { RecordsByKind } from './records.ts';
import type { CallOptions } from './request.ts';

/** A name, alias or level; absent or null for the whole list. Interpreted as the API's `search`. */
export type Search = string | number | null | undefined;

export type TreefarmData = {
  [Id in KindId]: (search?: Search, options?: CallOptions) => Promise<RecordsByKind[Id][]>;
};

/** Looks up `search` (the text the API would see, or null) among the records of `kind`. */
export type Lookup = (kind: KindId, search: string | null, options: CallOptions) => Promise<unknown[]>;

/** Builds the interface over one lookup. */
export function dataClient(lookup: Lookup): TreefarmData {
  const methods = kindIds.map((kind) => [
    kind,
    (search?: Search, options: CallOptions = {}) => lookup(kind, search == null ? null : String(search), options),
  ]);
  return Object.fromEntries(methods) as TreefarmData;
}

/** The body of every API answer. */
export interface Envelope {
  error: boolean;
  message: string;
  data?: unknown[];
}
