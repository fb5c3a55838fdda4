// The first step of a request through the edge core: by its method and path, which part of the
// service it is for.
import { HEALTH_PATH } from '../contract/health.ts';
import type { EdgeRequest, MountedApp } from './decision.ts';
import { reachesApiFolder } from './static-guard.ts';

/** The preflight (OPTIONS) of a guarded app: the core answers it with the app's own CORS headers. */
export interface AppPreflight {
  readonly preflightOf: MountedApp;
}

/**
 * Where a request goes: the API (its preflight apart), an app of the seam (apps.ts; a guarded
 * app's preflight apart), the health check, the static site, or one of the static site's
 * refusals (a spelling of the private API folder; a method the site does not serve).
 */
export type Route =
  | 'api'
  | MountedApp
  | 'preflight'
  | AppPreflight
  | 'health'
  | 'static'
  | 'api-folder'
  | 'static-method';

/** The request's method in upper case (the common GET without a copy). */
export const methodOf = (request: EdgeRequest): string =>
  request.method === 'GET' ? 'GET' : request.method.toUpperCase();

/** Each guarded app's preflight route, made once. */
const preflights = new WeakMap<MountedApp, AppPreflight>();
const preflightOf = (mount: MountedApp): AppPreflight => {
  const known = preflights.get(mount) ?? Object.freeze({ preflightOf: mount });
  preflights.set(mount, known);
  return known;
};

/** Whether a route is guarded by the API's token and limit: the API, a guarded app, and their preflights. */
export const isGuarded = (route: Route): boolean =>
  route === 'api' ||
  route === 'preflight' ||
  (typeof route === 'object' && ('preflightOf' in route || !!route.guarded));

/**
 * The app is the one the adapter found at the request's path (`mount`) among those that are on (the
 * Discord app with DISCORD_PUBLIC_KEY): an app off, its path is the site's.
 */
export function routeOf(request: EdgeRequest): Route {
  const pathname = request.pathname;
  const method = methodOf(request);
  if (pathname === '/api' || pathname.startsWith('/api/')) return method === 'OPTIONS' ? 'preflight' : 'api';
  // An app's path itself only (/mcp/ and below are the site's), every method: the bridge answers
  // a method outside the app's own with its 405, so a POST elsewhere stays the site's.
  const mount = request.mount;
  if (mount) return method === 'OPTIONS' && mount.guarded ? preflightOf(mount) : mount;
  if (reachesApiFolder(pathname)) return 'api-folder';
  // Decided here, not by each runtime's file server, so both answer other methods alike.
  if (method !== 'GET' && method !== 'HEAD') return 'static-method';
  return pathname === HEALTH_PATH ? 'health' : 'static';
}
