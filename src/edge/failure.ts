// The answer of every runtime to a failure it caught that the core did not decide (a stored
// body failing its SHA-256, an object missing or short in a bucket, a broken index, a bug): the
// API's JSON error envelope with the error headers and CORS, never a stack trace or a path,
// which go to the runtime's log. One definition, so the Node server and the Worker answer alike.
import { CACHE_ERROR, COMMON_HEADERS, JSON_CONTENT_TYPE } from '../contract/headers.ts';
import { INTERNAL_ERROR_BODY } from '../contract/messages.ts';
import type { HeaderRecord } from './decision.ts';

export interface FailureAnswer {
  readonly status: number;
  readonly headers: HeaderRecord;
  /** The JSON envelope (src/contract/messages.ts); a HEAD gets the headers alone. */
  readonly body: string;
}

const FAILURE_HEADERS: HeaderRecord = {
  ...COMMON_HEADERS,
  'Content-Type': JSON_CONTENT_TYPE,
  'Cache-Control': CACHE_ERROR,
};

/** The 500 of a failure, with `body` the envelope saying what the client may know of it. */
export const failureAnswer = (body: string = INTERNAL_ERROR_BODY): FailureAnswer =>
  Object.freeze({ status: 500, headers: FAILURE_HEADERS, body });
