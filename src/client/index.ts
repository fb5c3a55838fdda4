// The typed client of the tree farm data, online (createClient) or offline (openBundle),
// with the same methods: trees(search?), cutters(search?), gifts, plots, storages, vehicles,
// and suggest(kind, text) for autocomplete.
export type { Cutter, Gift, Plot, Storage, Tree, Vehicle } from '../schema/records.ts';
export type { KindId, RecordsByKind } from '../schema/kinds.ts';
export { openBundle, verifyBundle, type BundleClient, type VerifiedBundle } from './bundle.ts';
export { ApiError, AuthError, BundleError, NotFoundError, TreefarmError } from './errors.ts';
export { createClient, type ClientOptions } from './online.ts';
export type { Search, TreefarmData } from './types.ts';
export type { Suggestion } from '../contract/suggest.ts';
