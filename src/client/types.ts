// The interface both clients share: one method per kind, each taking the API's `search`.
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
};

/** The clients' `release` option: answer every query from that data release (an id of releases()). */
export interface ReleaseOption {
  release?: string;
}

/** Looks up `search` (the text the API would see, or null) among the records of `kind`. */
export type Lookup = (kind: KindId, search: string | null, options: CallOptions) => Promise<unknown[]>;

/** Builds the interface over one lookup, and the reader of the list of releases. */
export function dataClient(lookup: Lookup, releases: (options?: CallOptions) => Promise<unknown[]>): TreefarmData {
  const methods = kindIds.map((kind) => [
    kind,
    (search?: Search, options: CallOptions = {}) => lookup(kind, search == null ? null : String(search), options),
  ]);
  return { ...Object.fromEntries(methods), releases } as TreefarmData;
}

/** The body of every API answer. */
export interface Envelope {
  error: boolean;
  message: string;
  data?: unknown[];
}
