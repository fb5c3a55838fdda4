// The errors of the client: one base class, so a caller can catch everything the client
// throws on purpose with `instanceof TreefarmError`, or one case by its own class.
//   TreefarmError
//   ├─ ApiError        the API answered with an error status (request and response attached)
//   │  ├─ AuthError      401: no token, or one the API does not know
//   │  ├─ NotFoundError  404: no record matches (also thrown by the offline client)
//   │  └─ RateLimitError 429: the token's rate limit, after the waits the retry policy allows
//   ├─ NetworkError    no answer at all (the cause attached), after every retry
//   │  └─ TimeoutError   no answer within the timeout
//   └─ BundleError     an archive that is not a valid bundle
import type { KindId } from '../schema/kind-ids.ts';

export class TreefarmError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What an API error carries besides its message. Offline, there is no request or response. */
export interface ApiErrorDetails {
  request?: Request | undefined;
  response?: Response | undefined;
}

/** The API answered with an error status. The message is the API's own `message`. */
export class ApiError extends TreefarmError {
  readonly status: number;
  /** The request that got this answer (online only). */
  readonly request: Request | undefined;
  /** The answer, its body already read (online only). */
  readonly response: Response | undefined;
  constructor(message: string, status: number, { request, response }: ApiErrorDetails = {}) {
    super(message);
    this.status = status;
    this.request = request;
    this.response = response;
  }
}

/** No token, or a token the API does not know (401). */
export class AuthError extends ApiError {
  declare readonly status: 401;
  constructor(message: string, details?: ApiErrorDetails) {
    super(message, 401, details);
  }
}

/** No record matches the search (404). The message is the API's not-found message. */
export class NotFoundError extends ApiError {
  declare readonly status: 404;
  readonly kind: KindId;
  readonly search: string | null;
  constructor(message: string, kind: KindId, search: string | null, details?: ApiErrorDetails) {
    super(message, 404, details);
    this.kind = kind;
    this.search = search;
  }
}

/**
 * The token made more requests than the API's rate limit allows (429), and waiting for the
 * next window was not worth it: the retries were spent, or the API asked for a longer wait
 * than the retry policy's maxDelay.
 */
export class RateLimitError extends ApiError {
  declare readonly status: 429;
  /** Seconds the API asked to wait (its Retry-After), when it said. */
  readonly retryAfter: number | undefined;
  constructor(message: string, retryAfter: number | undefined, details?: ApiErrorDetails) {
    super(message, 429, details);
    this.retryAfter = retryAfter;
  }
}

/** The request got no answer: refused, dropped, a DNS failure... `cause` holds what fetch threw. */
export class NetworkError extends TreefarmError {
  readonly request: Request;
  constructor(message: string, request: Request, options?: ErrorOptions) {
    super(message, options);
    this.request = request;
  }
}

/** No answer within the client's `timeout` (milliseconds). */
export class TimeoutError extends NetworkError {
  readonly timeout: number;
  constructor(request: Request, timeout: number, options?: ErrorOptions) {
    super(`No answer from ${request.url} within ${timeout} ms.`, request, options);
    this.timeout = timeout;
  }
}

/** An archive that is not a valid bundle, or whose files do not match its manifest. */
export class BundleError extends TreefarmError {
  /** The file of the bundle at fault, when one is. */
  readonly file: string | undefined;
  constructor(message: string, file?: string) {
    super(message);
    this.file = file;
  }
}
