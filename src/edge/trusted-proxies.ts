// Who may forward a client's address (TRUST_PROXY on the Node server): a number of nearest hops,
// or the addresses and ranges the operator lists. A list that covers a whole address family, in
// one range (0.0.0.0/0, ::/0, ::ffff:0:0/96, 2000::/3 ...) or in several (0.0.0.0/1 and
// 128.0.0.0/1), trusts every client to name its own address, so it is refused; trusting every
// peer on purpose has its own spelling, `every-peer`. Web-standard only.
import { addressGroups } from './client-address.ts';
import { boundedMemo, type Memo } from './memo.ts';

/** A block of addresses: its first `bits` bits, of an address as addressGroups gives it. */
export interface AddressRange {
  groups: readonly number[];
  bits: number;
}

/**
 * Who is trusted to forward a client's address: the `hops` nearest (the socket's peer and the
 * `hops - 1` rightmost addresses of the header), or every address in `ranges` (every address
 * at all with `everyPeer`, TRUST_PROXY=every-peer).
 */
export type TrustedProxies =
  | { readonly hops: number }
  | { readonly ranges: readonly AddressRange[]; readonly everyPeer?: true };

/** The most hops a count may name: more proxies than this in front of one server is a mistake. */
export const MAX_HOPS = 32;

/** TRUST_PROXY's spelling for trusting every peer on purpose (docs/deploy.md says when that is safe). */
export const EVERY_PEER = 'every-peer';

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

/** Whether `groups` fall in `range`. */
function inRange(groups: readonly number[], { groups: start, bits }: AddressRange): boolean {
  for (let index = 0, left = bits; left > 0; index++, left -= 16) {
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    if (((groups[index] ?? 0) & mask) !== ((start[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** The blocks no trust list may hold: all, every IPv4 address (as mapped), every public IPv6 one. */
const FAMILIES = [
  { name: 'every address', range: { groups: [0, 0, 0, 0, 0, 0, 0, 0], bits: 0 } },
  { name: 'every IPv4 address', range: { groups: [0, 0, 0, 0, 0, 0xffff, 0, 0], bits: 96 } },
  { name: 'every public IPv6 address (2000::/3)', range: { groups: [0x2000, 0, 0, 0, 0, 0, 0, 0], bits: 3 } },
];

/** The two blocks of one more bit that make up `block` (the bit after its prefix 0, then 1). */
function halves({ groups, bits }: AddressRange): AddressRange[] {
  const group = bits >> 4;
  const bit = 0x8000 >> (bits & 15);
  const withBit = (set: boolean) =>
    groups.map((value, index) => (index !== group ? value : set ? value | bit : value & ~bit & 0xffff));
  return [
    { groups: withBit(false), bits: bits + 1 },
    { groups: withBit(true), bits: bits + 1 },
  ];
}

/**
 * Whether `ranges` together hold every address of `block`: one holds it whole, or those inside
 * it hold both its halves. Only blocks with a range strictly inside are split, so the work is at
 * most the ranges' prefix lengths added up.
 */
function covers(ranges: readonly AddressRange[], block: AddressRange): boolean {
  if (ranges.some((range) => range.bits <= block.bits && inRange(block.groups, range))) return true;
  const inside = ranges.filter((range) => range.bits > block.bits && inRange(range.groups, block));
  return inside.length > 0 && halves(block).every((half) => covers(inside, half));
}

/** The family `ranges` hold together, if any. */
const familyIn = (ranges: readonly AddressRange[]) => FAMILIES.find((family) => covers(ranges, family.range));

/** The refusal of a list whose `entries` (as "entry 2 (0.0.0.0/0)") cover `family`. */
const coverRefusal = (entries: string, verb: string, family: string) =>
  `${entries} ${verb} ${family}, so every client could name its own address: ` +
  `list the proxies' own addresses or ranges (write ${EVERY_PEER} alone to trust every peer on purpose)`;

interface Entry {
  place: number;
  text: string;
  ranges: readonly AddressRange[];
}

/**
 * The refusal of a list whose entries, none alone, together cover a family (0.0.0.0/1 and
 * 128.0.0.0/1), naming the entries that do: each one left out in turn, those still needed stay.
 * Undefined when they cover none.
 */
function togetherRefusal(entries: readonly Entry[]): string | undefined {
  const rangesOf = (some: readonly Entry[]) => some.flatMap(({ ranges }) => ranges);
  const family = familyIn(rangesOf(entries));
  if (family === undefined) return undefined;
  let needed = entries;
  for (const entry of entries) {
    const without = needed.filter((kept) => kept !== entry);
    if (covers(rangesOf(without), family.range)) needed = without;
  }
  const places = needed.map(({ place }) => place);
  const named = `${places.slice(0, -1).join(', ')} and ${places.at(-1)}`;
  const texts = needed.map(({ text }) => text).join(', ');
  return coverRefusal(`entries ${named} (${texts})`, 'together cover', family.name);
}

/** TRUST_PROXY=every-peer: the one range that holds every address. */
const EVERY_ADDRESS: AddressRange = { groups: [0, 0, 0, 0, 0, 0, 0, 0], bits: 0 };

/**
 * TRUST_PROXY's value as the proxies it trusts; a text naming what is wrong when it is not one.
 * Forms: a whole number of hops from 1 to MAX_HOPS; a comma-separated list of addresses, CIDR
 * ranges (`10.0.0.0/8`, `fd00::/8`) and the names `loopback` and `private`; or `every-peer` alone.
 */
export function trustedProxies(value: string): TrustedProxies | string {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops >= 1 && hops <= MAX_HOPS ? { hops } : `must be a number of hops from 1 to ${MAX_HOPS}`;
  }
  if (text.toLowerCase() === EVERY_PEER) return { ranges: [EVERY_ADDRESS], everyPeer: true };
  const entries = text.split(',').map((entry) => entry.trim());
  const parsed: Entry[] = [];
  for (const [index, entry] of entries.entries()) {
    const named = NAMED_RANGES.get(entry.toLowerCase());
    const found = named ? named.map(rangeOf) : [rangeOf(entry)];
    if (entry === '' || found.some((range) => range === undefined))
      return (
        `entry ${index + 1} is not an IP address, a CIDR range (such as 10.0.0.0/8) or one of ` +
        `${[...NAMED_RANGES.keys()].join(', ')} (or give a number of hops, or ${EVERY_PEER}, alone)`
      );
    const ranges = found as AddressRange[];
    const family = familyIn(ranges);
    if (family !== undefined) return coverRefusal(`entry ${index + 1} (${entry})`, 'covers', family.name);
    parsed.push({ place: index + 1, text: entry, ranges });
  }
  return togetherRefusal(parsed) ?? { ranges: parsed.flatMap(({ ranges }) => ranges) };
}

/** Addresses already judged, by the ranges that judged them: a proxy's address comes back on every request. */
const judged = new WeakMap<readonly AddressRange[], Memo<string, boolean>>();
const JUDGED = { entries: 1024, length: 64 };

/** Whether `address` (in any spelling addressGroups reads) is in one of `ranges`. */
export function isTrusted(address: string, ranges: readonly AddressRange[]): boolean {
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
