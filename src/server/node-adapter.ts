// Translates between node:http and the edge core: a request into an EdgeRequest, a decision
// into a response. Nothing here decides anything about the API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EdgeRequest, EdgeResponse } from '../edge/core.ts';
import type { BodyStore } from './body-store.ts';

/** The request's URL, or undefined for a target no URL parser accepts. */
export function requestUrl(target: string): URL | undefined {
  try {
    // Origin-form ("/api/trees") is appended to a fixed origin rather than resolved against
    // it, so "//host/api" stays a path, as it is on the wire.
    return target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target);
  } catch {
    return undefined;
  }
}

export function toEdgeRequest(request: IncomingMessage, url: URL): EdgeRequest {
  const distinct = request.headersDistinct;
  return {
    method: request.method ?? 'GET',
    url,
    // Repeated headers are joined, as fetch's Headers does, so both runtimes see the same.
    header: (name) => distinct[name]?.join(', ') ?? null,
  };
}

export function sendDecision(response: ServerResponse, decision: EdgeResponse, store: BodyStore): void {
  const body = decision.body ? store.bytes(decision.body, decision.encoding) : undefined;
  const headers: Record<string, string | number> = { ...decision.headers };
  if (body) headers['Content-Length'] = body.length;
  response.writeHead(decision.status, headers);
  response.end(decision.omitBody ? undefined : body);
}
