// The fixed header values of the API contract: the edge sends them, OpenAPI documents them.

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** The methods of everything outside /api/ (the wiki and the downloads); others get 405. */
export const STATIC_METHODS = 'GET, HEAD';
/** How long a client may keep an answer of the current data (the MCP lists' ttlMs too). */
export const CACHE_FOUND_SECONDS = 300;
/** Cache-Control of a 200 (and its 304). */
export const CACHE_FOUND = `private, max-age=${CACHE_FOUND_SECONDS}`;
/** Cache-Control of a 200 (and its 304) pinned to a release, which never changes. */
export const CACHE_PINNED = 'private, max-age=31536000, immutable';
/**
 * Cache-Control of a static asset the site does not name otherwise (Cloudflare's own for Workers
 * static assets): a download the Worker serves from R2 sends it too.
 */
export const CACHE_STATIC = 'public, max-age=0, must-revalidate';
/** Cache-Control of every error. */
export const CACHE_ERROR = 'no-store';

/** On every /api/ response, beside X-Data-Version (which is the build's). */
export const COMMON_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, X-Data-Version',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** The answer to an OPTIONS preflight. */
export const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': ALLOWED_METHODS,
  // If-None-Match too, so a browser client can revalidate what it holds (ETag, 304).
  'Access-Control-Allow-Headers': 'Authorization, If-None-Match',
  'Access-Control-Max-Age': '86400',
} as const;

/** On both 401 answers. */
export const CHALLENGE_HEADERS = { 'WWW-Authenticate': 'Bearer' } as const;
