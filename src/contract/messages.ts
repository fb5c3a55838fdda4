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
    message: `The requested ${noun} could not be found with the provided query. Please check the name or ID and try again.`,
  });
}

const errorBody = (message: string) => JSON.stringify({ error: true, message });

export const TOKEN_REQUIRED_BODY = errorBody('An API token is required. Send it in the Authorization header.');
export const TOKEN_INVALID_BODY = errorBody('The provided API token is not valid.');
const endpoints = kindIds.map((id) => `/api/${id}`);
export const UNKNOWN_ENDPOINT_BODY = errorBody(
  `Unknown endpoint. The endpoints are ${endpoints.slice(0, -1).join(', ')} and ${endpoints.at(-1)}.`,
);
export const METHOD_NOT_ALLOWED_BODY = errorBody('Method not allowed. Use GET.');

/** A static path that would reach the private API folder (see reachesApiFolder in the edge). */
export const NOT_FOUND_BODY = errorBody('Not found.');

/** Every body the edge sends that is not a file of the build. */
export const FIXED_BODIES = [
  TOKEN_REQUIRED_BODY,
  TOKEN_INVALID_BODY,
  UNKNOWN_ENDPOINT_BODY,
  METHOD_NOT_ALLOWED_BODY,
  NOT_FOUND_BODY,
] as const;
