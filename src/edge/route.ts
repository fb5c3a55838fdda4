// The first step of a request through the edge core: by its method and path, which part of the
// service it is for.
import { HEALTH_PATH } from '../contract/health.ts';
import { DISCORD_PATH, MCP_PATH } from '../contract/paths.ts';
import type { EdgeRequest } from './decision.ts';
import { reachesApiFolder } from './static-guard.ts';

/**
 * Where a request goes: the API or the MCP server (their preflight apart), the Discord app, the
 * health check, the static site, or one of the static site's refusals (a spelling of the
 * private API folder; a method the site does not serve).
 */
export type Route =
  | 'api'
  | 'mcp'
  | 'preflight'
  | 'mcp-preflight'
  | 'discord'
  | 'health'
  | 'static'
  | 'api-folder'
  | 'static-method';

/** The request's method in upper case (the common GET without a copy). */
export const methodOf = (request: EdgeRequest): string =>
  request.method === 'GET' ? 'GET' : request.method.toUpperCase();

/** `discord`: whether the Discord app is on (DISCORD_PUBLIC_KEY set); off, its path is the static site's. */
export function routeOf(request: EdgeRequest, discord = false): Route {
  const pathname = request.pathname;
  const method = methodOf(request);
  if (pathname === '/api' || pathname.startsWith('/api/')) return method === 'OPTIONS' ? 'preflight' : 'api';
  // /mcp itself only: /mcp/ and below are the site's.
  if (pathname === MCP_PATH) return method === 'OPTIONS' ? 'mcp-preflight' : 'mcp';
  // Every method: the Discord app answers its own 405, so a POST elsewhere stays the site's.
  if (discord && pathname === DISCORD_PATH) return 'discord';
  if (reachesApiFolder(pathname)) return 'api-folder';
  // Decided here, not by each runtime's file server, so both answer other methods alike.
  if (method !== 'GET' && method !== 'HEAD') return 'static-method';
  return pathname === HEALTH_PATH ? 'health' : 'static';
}
