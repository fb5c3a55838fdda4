// The client's address behind trusted proxies (TRUST_PROXY on the Node server): by default the
// client is the socket's peer; when the operator names the proxies in front of the server, a
// request whose peer is one of them is the address that proxy forwards, read from the one
// header the operator names (X-Forwarded-For, or Forwarded as RFC 7239 writes it), walking the
// header from the right past every trusted hop. Only a trusted peer's header is read at all, and
// of it only what trusted hops appended: anything a client wrote itself sits to the left of the
// first untrusted address and is never reached. Web-standard only; the adapter hands the
// socket's address and the request's headers, this decides.
import { addressGroups } from './client-address.ts';
import { boundedMemo, type Memo } from './memo.ts';

/** The headers a trusted proxy may forward the client's address in (lower case, as looked up). */
export const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded'] as const;
export type ForwardingHeader = (typeof FORWARDING_HEADERS)[number];

/** A block of addresses: its first `bits` bits, of an address as addressGroups gives it. */
export interface AddressRange {
  groups: readonly number[];
  bits: number;
}

/**
 * Who is trusted to forward a client's address: the `hops` nearest (the socket's peer and the
 * `hops - 1` rightmost addresses of the header), or every address in `ranges`.
 */
export type TrustedProxies = { readonly hops: number } | { readonly ranges: readonly AddressRange[] };

/** The most hops a count may name: more proxies than this in front of one server is a mistake. */
export const MAX_HOPS = 32;

/** The names an operator may list for common blocks (a Map: no name of Object's own is one). */
const NAMED_RANGES: ReadonlyMap<string, readonly string[]> = new Map([
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
]);

/** A range written as an address or `address/prefix` (an IPv4 prefix counts IPv4's 32 bits). */
function rangeOf(text: string): AddressRange | undefined {
  const [address = '', prefix, extra] = text.split('/');
  if (extra !== undefined) return undefined;
  const groups = addressGroups(address);
  if (!groups) return undefined;
  const ipv4 = !address.includes(':');
  const width = ipv4 ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined;
  const bits = prefix === undefined ? width : Number(prefix);
  if (bits > width) return undefined;
  return { groups, bits: ipv4 ? 96 + bits : bits };
}

/**
 * TRUST_PROXY's value as the proxies it trusts; a text naming what is wrong when it is not one.
 * Forms: a whole number of hops from 1 to MAX_HOPS, or a comma-separated list of addresses,
 * CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names `loopback` and `private`.
 */
export function trustedProxies(value: string): TrustedProxies | string {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops >= 1 && hops <= MAX_HOPS ? { hops } : `must be a number of hops from 1 to ${MAX_HOPS}`;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const ranges: AddressRange[] = [];
  for (const [index, entry] of entries.entries()) {
    const named = NAMED_RANGES.get(entry.toLowerCase());
    const found = named ? named.map(rangeOf) : [rangeOf(entry)];
    if (entry === '' || found.some((range) => range === undefined))
      return (
        `entry ${index + 1} is not an IP address, a CIDR range (such as 10.0.0.0/8) or one of ` +
        `${[...NAMED_RANGES.keys()].join(', ')} (or give a number of hops alone)`
      );
    ranges.push(...(found as AddressRange[]));
  }
  return { ranges };
}

/** Whether `groups` fall in `range`. */
function inRange(groups: readonly number[], { groups: start, bits }: AddressRange): boolean {
  for (let index = 0, left = bits; left > 0; index++, left -= 16) {
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    if (((groups[index] ?? 0) & mask) !== ((start[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** Addresses already judged, by the ranges that judged them: a proxy's address comes back on every request. */
const judged = new WeakMap<readonly AddressRange[], Memo<string, boolean>>();
const JUDGED = { entries: 1024, length: 64 };

function isTrusted(address: string, ranges: readonly AddressRange[]): boolean {
  let memo = judged.get(ranges);
  if (!memo) {
    memo = boundedMemo(JUDGED.entries);
    judged.set(ranges, memo);
  }
  const known = memo.find(address);
  if (known !== undefined) return known;
  const groups = addressGroups(address);
  const trusted = groups !== undefined && ranges.some((range) => inRange(groups, range));
  if (address.length <= JUDGED.length) memo.set(address, trusted);
  return trusted;
}

/** A node as a proxy writes it, without brackets or port: `[2001:db8::1]:443` -> `2001:db8::1`. */
function nodeName(text: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(text);
  if (bracketed) return bracketed[1] ?? '';
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d*$/.exec(text);
  return ipv4WithPort ? (ipv4WithPort[1] ?? '') : text;
}

/** The addresses of an X-Forwarded-For value, left to right, empty entries left out. */
function xForwardedFor(value: string): string[] {
  const nodes: string[] = [];
  for (const entry of value.split(',')) {
    const node = entry.trim();
    if (node !== '') nodes.push(nodeName(node));
  }
  return nodes;
}

/**
 * The `for` node of each element of a Forwarded value (RFC 7239, section 4), left to right:
 * elements are split at commas and pairs at semicolons outside quoted strings; an element
 * without `for` is `unknown`, as RFC 7239 writes a node it does not know; a blank one is none.
 */
function forwardedFor(value: string): string[] {
  const nodes: string[] = [];
  let node: string | undefined;
  let pair = '';
  let blank = true;
  let quoted = false;
  const endPair = () => {
    const equals = pair.indexOf('=');
    if (node === undefined && equals >= 0 && pair.slice(0, equals).trim().toLowerCase() === 'for')
      node = pair.slice(equals + 1).trim();
    pair = '';
  };
  const endElement = () => {
    endPair();
    if (!blank) nodes.push(node === undefined || node === '' ? 'unknown' : nodeName(node));
    node = undefined;
    blank = true;
  };
  for (let index = 0; index < value.length; index++) {
    const char = value[index] ?? '';
    if (quoted) {
      if (char === '"') quoted = false;
      else pair += char === '\\' ? (value[++index] ?? '') : char;
    } else if (char === '"') quoted = true;
    else if (char === ';') endPair();
    else if (char === ',') endElement();
    else pair += char;
    if (char !== ' ' && char !== '\t' && char !== ',') blank = false;
  }
  endElement();
  return nodes;
}

/**
 * The client's address: `peer` (the socket's) unless it is a trusted proxy; then, walking the
 * forwarded addresses from the right, the first that is not trusted (the leftmost when all are).
 * With a hop count, the address `hops` places left of the peer (the leftmost when fewer).
 * An address comes without brackets or port; a node that is not an address (`unknown`, a
 * hidden name) is the client as written, since only a trusted proxy can have put it there.
 */
export function forwardedClient(
  trusted: TrustedProxies,
  header: ForwardingHeader,
  peer: string,
  request: { header(name: string): string | null },
): string {
  if ('ranges' in trusted && !isTrusted(peer, trusted.ranges)) return peer;
  const value = request.header(header);
  if (value === null) return peer;
  const nodes = header === 'forwarded' ? forwardedFor(value) : xForwardedFor(value);
  if (nodes.length === 0) return peer;
  if ('hops' in trusted) return nodes[Math.max(nodes.length - trusted.hops, 0)] ?? peer;
  let index = nodes.length - 1;
  while (index > 0 && isTrusted(nodes[index] ?? '', trusted.ranges)) index--;
  return nodes[index] ?? peer;
}
