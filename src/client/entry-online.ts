// The package's main entry (treefarm-data-client): the online client, its errors and the
// record types. No schema library and no Node module, so it runs in browsers and workerd.
export type { CacheOptions } from './cache.ts';
export {
  ApiError,
  AuthError,
  BundleError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  TreefarmError,
  type ApiErrorDetails,
} from './errors.ts';
export { createClient, type ClientOptions } from './online.ts';
export type {
  ChangedRecord,
  Counts,
  Cutter,
  Gift,
  Plot,
  Range,
  RecordsByKind,
  ReleaseChanges,
  ReleaseSummary,
  Storage,
  Tree,
  Vehicle,
} from './records.ts';
export type { CallOptions } from './request.ts';
export type { RetryOptions } from './retry.ts';
export type { ReleaseOption, Search, TreefarmData } from './types.ts';
export type { Suggestion } from '../contract/suggest.ts';
export { kindIds, type KindId } from '../schema/kind-ids.ts';
