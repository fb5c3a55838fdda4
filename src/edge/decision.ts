// What the edge core reads of a request and what it decides, the words every step of the core
// (core.ts) and every adapter share.
import type { Encoding } from './negotiation.ts';

export interface EdgeRequest {
  method: string;
  /** The URL's path as WHATWG URL parsing gives it (dot segments resolved, still percent-encoded). */
  pathname: string;
  /** The URL's query without its "?" ('' when there is none), as WHATWG URL parsing gives it. */
  query: string;
  /** A header's value, several values of one header joined by ", "; null when absent. */
  header(name: string): string | null;
  /**
   * The client's address (the socket's, or CF-Connecting-IP on Cloudflare): what a rate limit
   * counts a request without a valid token against.
   */
  client?: string | null;
  /**
   * The app mounted at `pathname` (its path itself), or undefined: found by the adapter, once, among
   * the apps that are on (mountAt over its AppTable, apps.ts), since it needs it before the core does
   * (the Node server reads an app's body by the app's own bound). The core looks up no app itself.
   */
  readonly mount: MountedApp | undefined;
}

/**
 * What the core reads of an app of the seam (an AppMount, apps.ts): the name it hands a request over
 * by, and whether the API's token and limit guard it.
 */
export interface MountedApp {
  /** Its name: in the access log's and metrics' kinds, and what the core hands a request over by. */
  readonly name: string;
  /**
   * Behind the API's token and rate limit, with the headers of its preflight (the methods and the
   * headers its clients send); absent: its own credential, checked by the app (Discord's signature).
   */
  readonly guarded?: { readonly preflight: HeaderRecord };
}

/**
 * What to send, in the decision's encoding: a stored body of the build (by its SHA-256, see
 * src/contract/body-container.ts), or a text made for a query from the build's index (a
 * near-miss suggestion), which the adapter encodes.
 */
export type BodySource = { readonly stored: string } | { readonly text: string };

/** An answer the edge gives itself: every /api/ request, and static paths it refuses. Shared, frozen. */
export interface EdgeResponse {
  readonly type: 'respond';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for 204 and 304. */
  readonly body?: BodySource;
  readonly encoding: Encoding;
  /** HEAD: send the headers of the GET, no body. */
  readonly omitBody: boolean;
}

/**
 * A request for an app of the seam (apps.ts), by its mount's name: the adapter's bridge answers it
 * with the app, adding these headers. A guarded app's request (/mcp) comes once the token check and the rate
 * limit let it through, with the API's headers (never cached); another's (the Discord app, whose
 * signature is its credential) before the token step, uncounted, with none. Shared, frozen.
 */
export interface AppHandOff {
  readonly type: 'app';
  readonly app: string;
  readonly headers: HeaderRecord;
}

/**
 * An answer counted under a rate limit: the shared `answer` plus what is this request's alone,
 * its RateLimit state.
 */
export interface CountedResponse {
  readonly type: 'counted';
  readonly answer: EdgeResponse | AppHandOff;
  /** The value of this request's RateLimit header, where the runtime knows what is left. */
  readonly rateLimit?: string;
  /**
   * Set when the same request, sent again, is counted under this key alone and gets this
   * answer while the count allows it: its token is valid, and this is not a 429. What lets an
   * adapter that remembers decisions (remembered.ts) count a repeat itself and reuse `answer`.
   */
  readonly tokenKey?: string;
}

/** `static`: not the API's; the adapter serves the static site. */
export type EdgeDecision = { readonly type: 'static' } | EdgeResponse | AppHandOff | CountedResponse;

/** The static site's: shared by every request the adapter serves from its files. */
export const STATIC: EdgeDecision = Object.freeze({ type: 'static' });

/** The headers of an answer, shared between answers and never changed. */
export type HeaderRecord = Readonly<Record<string, string>>;
