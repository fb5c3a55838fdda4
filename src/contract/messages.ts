// Every JSON body of the API contract, byte for byte: the success and not-found envelopes
// the build writes, and the fixed error bodies the edge sends.
import { kindIds } from '../schema/kinds.ts';

export function successBody(noun: string, records: readonly object[]): string {
  return JSON.stringify({ error: false, message: `The requested ${noun} data was successfully found.`, data: records });
}

/** A suggestion answer: always a 200, `data` empty when nothing matches. */
export function suggestBody(noun: string, suggestions: readonly object[]): string {
  return JSON.stringify({ error: false, message: `Suggestions for the requested ${noun}.`, data: suggestions });
}

export function notFoundBody(noun: string): string {
  return JSON.stringify({
    error: true,
    message:
      `The requested ${noun} could not be found with the provided query. ` +
      'Please check the name or ID and try again.',
  });
}

/** The API's error envelope around `message`. */
export const errorBody = (message: string): string => JSON.stringify({ error: true, message });

export const TOKEN_REQUIRED_BODY = errorBody('An API token is required. Send it in the Authorization header.');
export const TOKEN_INVALID_BODY = errorBody('The provided API token is not valid.');
/** Every endpoint of the API, as the unknown endpoint's 404 lists them: the kinds, then the releases. */
const endpoints = [...kindIds.map((id) => `/api/${id}`), '/api/releases'];
export const UNKNOWN_ENDPOINT_BODY = errorBody(
  `Unknown endpoint. The endpoints are ${endpoints.slice(0, -1).join(', ')} and ${endpoints.at(-1)}.`,
);
export const METHOD_NOT_ALLOWED_BODY = errorBody('Method not allowed. Use GET.');
/** `release=<id>` naming no release. */
export const RELEASE_NOT_FOUND_BODY = errorBody(
  'The requested release could not be found. The releases are listed at /api/releases.',
);
/** The noun of GET /api/releases ("The requested release data was successfully found."). */
export const RELEASE_NOUN = 'release';

/**
 * A failure no rule of the contract decides (a stored body failing its SHA-256, an object missing
 * or short in a bucket, a broken index): what went wrong goes to the log, never to the client.
 */
export const INTERNAL_ERROR_BODY = errorBody('Internal error: this request could not be answered. Try again later.');

/** A static path that would reach the private API folder (see reachesApiFolder in the edge). */
export const NOT_FOUND_BODY = errorBody('Not found.');

/**
 * Every body the edge sends that is not the answer to a query, by the name of its file
 * (fixedBodyPath in paths.ts): the build writes them, with their br and gzip variants, like
 * every other API file, so no runtime compresses anything.
 */
export const FIXED_BODIES = [
  { name: 'token-required', body: TOKEN_REQUIRED_BODY },
  { name: 'token-invalid', body: TOKEN_INVALID_BODY },
  { name: 'unknown-endpoint', body: UNKNOWN_ENDPOINT_BODY },
  { name: 'method-not-allowed', body: METHOD_NOT_ALLOWED_BODY },
  { name: 'not-found', body: NOT_FOUND_BODY },
  { name: 'release-not-found', body: RELEASE_NOT_FOUND_BODY },
] as const;

export type FixedBodyName = (typeof FIXED_BODIES)[number]['name'];
