// The key a client address is counted under by a rate limit, the same in every runtime (the
// Node server's count, the Worker's binding): an IPv4 address whole, an IPv6 address by its
// first 64 bits. One host is usually given a whole IPv6 /64, so counting its addresses one by
// one would give it 2^64 counts, and let it fill any table of them. A client that is not an
// address (a proxy's `unknown` or hidden `_name`) is counted under one key shared by all such,
// so no key is longer than an address's and no new name buys a new count. Web-standard only.

/** The 8 groups of an IPv6 address, or undefined when it is not one. */
function ipv6Groups(text: string): number[] | undefined {
  let address = text;
  // An IPv4 tail (::ffff:1.2.3.4, ::1.2.3.4) is its last two groups.
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (tail) {
    const octets = ipv4Octets(tail[2] ?? '');
    if (!octets) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    address = `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0]);
  const rest = groupsOf(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...rest];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16));
}

/** The 4 octets of a dotted IPv4 address, or undefined when it is not one. */
function ipv4Octets(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.map(Number);
}

/**
 * An address's 128 bits as 8 groups of 16, in any of its spellings (`::`, upper case, a zone
 * id, brackets, white space around it); an IPv4 address as IPv4-mapped (::ffff:a.b.c.d), so
 * both families are compared alike. Undefined when the text is not an IP address.
 */
export function addressGroups(address: string): number[] | undefined {
  const text = address.trim().toLowerCase();
  const ipv4 = ipv4Octets(text);
  if (ipv4) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4;
    return [0, 0, 0, 0, 0, 0xffff, (a << 8) | b, (c << 8) | d];
  }
  return ipv6Groups(text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''));
}

/** Whether 8 groups are an IPv4 address, mapped: ::ffff:0:0/96, its first 80 bits all zero. */
export const isIpv4Mapped = (groups: readonly number[]): boolean =>
  groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff;

/** The one key of every client that is not an IP address (RFC 7239's word for a node not known). */
const NOT_AN_ADDRESS_KEY = 'unknown';

/**
 * The key `address` is counted under: an IPv4 address as it is written without leading zeros
 * (also when it comes IPv4-mapped, ::ffff:1.2.3.4, as a dual-stack socket gives it); an IPv6
 * address, in any of its spellings (`::`, upper case, a zone id, brackets), as its /64 prefix,
 * e.g. `2001:db8:0:1::/64`. Anything else, of any length, is NOT_AN_ADDRESS_KEY.
 */
export function addressKey(address: string): string {
  const groups = addressGroups(address);
  if (!groups) return NOT_AN_ADDRESS_KEY;
  // The last 32 bits of a mapped address are the IPv4 address.
  if (isIpv4Mapped(groups))
    return [groups[6] ?? 0, groups[7] ?? 0].flatMap((group) => [group >> 8, group & 0xff]).join('.');
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
