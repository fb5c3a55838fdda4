// The origin a request came to, for the links an app makes (the Discord app's embeds): the
// scheme and host the trusted proxies forward (the edge's rule, forwardedOrigin in
// src/edge/forwarded.ts, by the same walk as the client's address), else the request's own Host
// over http. A peer that is not trusted changes nothing.
import type { IncomingMessage } from 'node:http';
import { type ForwardingHeader, forwardedOrigin } from '../edge/forwarded.ts';
import type { TrustedProxies } from '../edge/trusted-proxies.ts';
import { headersOf } from './node-adapter.ts';

/** The trusted proxies (TRUST_PROXY) and the header they forward the client's address in. */
export interface Proxies {
  trusted: TrustedProxies;
  header: ForwardingHeader;
}

/** `scheme://host[:port]` of `request`, as `proxies` (if any) forward it; http://localhost when no host is named. */
export function publicOrigin(request: IncomingMessage, proxies: Proxies | undefined): string {
  const peer = request.socket.remoteAddress;
  const forwarded =
    proxies && peer !== undefined
      ? forwardedOrigin(proxies.trusted, proxies.header, peer, { header: headersOf(request) })
      : undefined;
  const origin = `${forwarded?.proto ?? 'http'}://${forwarded?.host ?? request.headers.host ?? 'localhost'}`;
  return URL.canParse(origin) ? new URL(origin).origin : 'http://localhost';
}
