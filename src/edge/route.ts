// The first step of a request through the edge core: by its method and path, which part of the
// service it is for.
import { HEALTH_PATH } from '../contract/health.ts';
import { MCP_PATH } from '../contract/paths.ts';
import type { EdgeRequest } from './decision.ts';
import { reachesApiFolder } from './static-guard.ts';

/**
 * Where a request goes: the API or the MCP server (their preflight apart), the health check,
 * the static site, or one of the static site's refusals (a spelling of the private API folder;
 * a method the site does not serve).
 */
export type Route =
  | 'api'
  | 'mcp'
  | 'preflight'
  | 'mcp-preflight'
  | 'health'
  | 'static'
  | 'api-folder'
  | 'static-method';

/** The request's method in upper case (the common GET without a copy). */
export const methodOf = (request: EdgeRequest): string =>
  request.method === 'GET' ? 'GET' : request.method.toUpperCase();

export function routeOf(request: EdgeRequest): Route {
  const pathname = request.pathname;
  const method = methodOf(request);
  if (pathname === '/api' || pathname.startsWith('/api/')) return method === 'OPTIONS' ? 'preflight' : 'api';
  // /mcp itself only: /mcp/ and below are the site's.
  if (pathname === MCP_PATH) return method === 'OPTIONS' ? 'mcp-preflight' : 'mcp';
  if (reachesApiFolder(pathname)) return 'api-folder';
  // Decided here, not by each runtime's file server, so both answer other methods alike.
  if (method !== 'GET' && method !== 'HEAD') return 'static-method';
  return pathname === HEALTH_PATH ? 'health' : 'static';
}
