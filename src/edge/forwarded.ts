// What trusted proxies forward (TRUST_PROXY on the Node server): by default the client is the
// socket's peer; when the operator names the proxies in front of the server (trusted-proxies.ts),
// a request whose peer is one of them is the address that proxy forwards, read from the one
// header the operator names (X-Forwarded-For, or Forwarded as RFC 7239 writes it: see
// forwarded-elements.ts), walking the header from the right past every trusted hop. The same walk
// gives the scheme and host the request came to, as the proxy that met the client forwards them.
// Only a trusted peer's headers are read at all, and of them only what trusted hops appended:
// anything a client wrote itself sits to the left of the first untrusted address and is never
// reached. Web-standard only; the adapter hands the socket's address and the request's headers.
import { type ForwardedElement, forwardedElements } from './forwarded-elements.ts';
import { isTrusted, type TrustedProxies } from './trusted-proxies.ts';

/** The headers a trusted proxy may forward the client's address in (lower case, as looked up). */
export const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded'] as const;
export type ForwardingHeader = (typeof FORWARDING_HEADERS)[number];

/** The request's headers by lower-case name, several lines of one joined by ", " (RFC 9110). */
interface HeaderLookup {
  header(name: string): string | null;
}

/** A node as a proxy writes it, without brackets or port: `[2001:db8::1]:443` -> `2001:db8::1`. */
function nodeName(text: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(text);
  if (bracketed) return bracketed[1] ?? '';
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d*$/.exec(text);
  return ipv4WithPort ? (ipv4WithPort[1] ?? '') : text;
}

/** The entries of a comma-separated list (X-Forwarded-For, -Proto, -Host), left to right, empty ones left out. */
function listEntries(value: string | null): string[] {
  const entries: string[] = [];
  for (const entry of value?.split(',') ?? []) {
    const trimmed = entry.trim();
    if (trimmed !== '') entries.push(trimmed);
  }
  return entries;
}

/**
 * The node an element's `for` names; `unknown`, as RFC 7239 writes a node it does not know, for
 * an element without one and for a malformed element (what a client wrote: it names no one).
 */
function nodeOf(element: ForwardedElement): string {
  const node = element?.get('for');
  return node === undefined || node === '' ? 'unknown' : nodeName(node);
}

/** A walk over what a trusted peer forwarded: the hops' nodes, left to right, and which is the client. */
interface Walk {
  nodes: string[];
  client: number;
  /** The Forwarded elements the nodes come from (undefined for X-Forwarded-For). */
  elements: ForwardedElement[] | undefined;
}

/**
 * Walks what `peer` forwarded: from the right, the first node that is not trusted is the client
 * (the leftmost when all are); with a hop count, the node `hops` places left of the peer (the
 * leftmost when fewer). Undefined when the peer is not trusted or forwards no node.
 */
function walk(
  trusted: TrustedProxies,
  header: ForwardingHeader,
  peer: string,
  request: HeaderLookup,
): Walk | undefined {
  if ('ranges' in trusted && !isTrusted(peer, trusted.ranges)) return undefined;
  const value = request.header(header);
  if (value === null) return undefined;
  const elements = header === 'forwarded' ? forwardedElements(value) : undefined;
  const nodes = elements ? elements.map(nodeOf) : listEntries(value).map(nodeName);
  if (nodes.length === 0) return undefined;
  if ('hops' in trusted) return { nodes, client: Math.max(nodes.length - trusted.hops, 0), elements };
  let client = nodes.length - 1;
  while (client > 0 && isTrusted(nodes[client] ?? '', trusted.ranges)) client--;
  return { nodes, client, elements };
}

/**
 * The client's address: `peer` (the socket's) unless it is a trusted proxy; then the node the
 * walk stops at, without brackets or port. A node that is not an address (`unknown`, a hidden
 * name) is the client as written, for the log; the rate limit counts all such under one key
 * (addressKey, client-address.ts), so a proxy that passes on a client's own name costs nothing.
 */
export function forwardedClient(
  trusted: TrustedProxies,
  header: ForwardingHeader,
  peer: string,
  request: HeaderLookup,
): string {
  const hops = walk(trusted, header, peer, request);
  return hops ? (hops.nodes[hops.client] ?? peer) : peer;
}

/** The scheme and host a request came to, as trusted proxies forward them; undefined where none does. */
export interface ForwardedOrigin {
  proto: 'http' | 'https' | undefined;
  host: string | undefined;
}

const NOT_FORWARDED: ForwardedOrigin = Object.freeze({ proto: undefined, host: undefined });

/** A forwarded scheme the links can use: http or https, in any letter case. */
function protoOf(text: string | undefined): ForwardedOrigin['proto'] {
  const proto = text?.toLowerCase();
  return proto === 'http' || proto === 'https' ? proto : undefined;
}

/** A forwarded host as a URL's authority takes it (a name, an IPv4 or a bracketed IPv6 address; a port). */
function hostOf(text: string | undefined): string | undefined {
  if (text === undefined || !/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/.test(text)) return undefined;
  return URL.canParse(`http://${text}/`) ? text : undefined;
}

/**
 * The scheme and host the request came to, by the same walk as the client: from Forwarded, the
 * `proto=` and `host=` of the element of the proxy that met the client, else of the nearest
 * trusted hop after it that has one; from X-Forwarded-Proto and X-Forwarded-Host (with
 * X-Forwarded-For), the entry aligned from the right with the client's (a proxy that sets one
 * value: that value). Nothing from a peer that is not trusted; an unusable value is none.
 */
export function forwardedOrigin(
  trusted: TrustedProxies,
  header: ForwardingHeader,
  peer: string,
  request: HeaderLookup,
): ForwardedOrigin {
  const hops = walk(trusted, header, peer, request);
  if (!hops) return NOT_FORWARDED;
  if (hops.elements) {
    const trustedElements = hops.elements.slice(hops.client);
    const first = <T>(read: (element: ForwardedElement) => T | undefined) =>
      trustedElements.map(read).find((found) => found !== undefined);
    return { proto: first((one) => protoOf(one?.get('proto'))), host: first((one) => hostOf(one?.get('host'))) };
  }
  const aligned = (name: string) => {
    const entries = listEntries(request.header(name));
    return entries[Math.max(hops.client - (hops.nodes.length - entries.length), 0)];
  };
  return { proto: protoOf(aligned('x-forwarded-proto')), host: hostOf(aligned('x-forwarded-host')) };
}
