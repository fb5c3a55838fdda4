// The interface both clients share: one method per kind, each taking the API's `search`.
import { kindIds, type KindId, type RecordsByKind } from '../schema/kinds.ts';
import type { ReleaseSummary } from '../schema/releases.ts';

/** A name, alias or level; absent or null for the whole list. Interpreted as the API's `search`. */
export type Search = string | number | null | undefined;

export type TreefarmData = { [Id in KindId]: (search?: Search) => Promise<RecordsByKind[Id][]> } & {
  /** Every data release, newest first, with its changes (GET /api/releases). */
  releases(): Promise<ReleaseSummary[]>;
};

/** The client's `release` option: answer every query from that data release (an id of releases()). */
export interface ReleaseOption {
  release?: string;
}

/**
 * Builds the interface over one lookup: `search` arrives as the text the API would see, or
 * null; `releases` reads the list of releases.
 */
export function dataClient(
  lookup: (kind: KindId, search: string | null) => Promise<unknown[]>,
  releases: () => Promise<unknown[]>,
): TreefarmData {
  const methods = kindIds.map((kind) => [
    kind,
    (search?: Search) => lookup(kind, search == null ? null : String(search)),
  ]);
  return { ...Object.fromEntries(methods), releases } as TreefarmData;
}

/** The body of every API answer. */
export interface Envelope {
  error: boolean;
  message: string;
  data?: unknown[];
}
