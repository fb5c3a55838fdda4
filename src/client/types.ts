// The interface both clients share: one method per kind, each taking the API's `search`,
// suggest(kind, text) for type-ahead boxes, and releases().
import type { Suggestion } from '../contract/suggest.ts';
import { kindIds, type KindId } from '../schema/kind-ids.ts';
import type { RecordsByKind, ReleaseSummary } from './records.ts';
import type { CallOptions } from './request.ts';

/** A name, alias or level; absent or null for the whole list. Interpreted as the API's `search`. */
export type Search = string | number | null | undefined;

export type TreefarmData = {
  [Id in KindId]: (search?: Search, options?: CallOptions) => Promise<RecordsByKind[Id][]>;
} & {
  /** Every data release, newest first, with its changes (GET /api/releases). */
  releases(options?: CallOptions): Promise<ReleaseSummary[]>;
  /**
   * Up to 25 suggestions for what a user typed so far (GET /api/{kind}/suggest): exact and
   * prefix matches first, then near misses ("sequioa" finds Giant Sequoia); [] when none.
   */
  suggest(kind: KindId, text?: Search, options?: CallOptions): Promise<Suggestion[]>;
};

/** The clients' `release` option: answer every query from that data release (an id of releases()). */
export interface ReleaseOption {
  release?: string;
}

/** Looks up `search` (the text the API would see, or null) among the records of `kind`. */
export type Lookup = (kind: KindId, search: string | null, options: CallOptions) => Promise<unknown[]>;

/** `search` as the text the API would see, or null. */
const asSearch = (search: Search) => (search == null ? null : String(search));

/** Builds the interface over one lookup per endpoint: records, suggestions, and the list of releases. */
export function dataClient(
  lookup: Lookup,
  suggest: (kind: KindId, text: string | null, options: CallOptions) => Promise<Suggestion[]>,
  releases: (options?: CallOptions) => Promise<unknown[]>,
): TreefarmData {
  const methods = kindIds.map((kind) => [
    kind,
    (search?: Search, options: CallOptions = {}) => lookup(kind, asSearch(search), options),
  ]);
  const suggestions = (kind: KindId, text?: Search, options: CallOptions = {}) =>
    suggest(kind, asSearch(text), options);
  return { ...Object.fromEntries(methods), suggest: suggestions, releases } as TreefarmData;
}

/** The body of every API answer. */
export interface Envelope {
  error: boolean;
  message: string;
  data?: unknown[];
}
