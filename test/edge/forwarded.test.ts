// The client's address behind trusted proxies (src/edge/forwarded.ts; docs/api-contract.md,
// "Rate limits"): the socket's, unless its peer is a proxy the operator trusts; then the
// address that proxy forwards, walking X-Forwarded-For or Forwarded from the right past
// trusted hops. A header from anyone else changes nothing.
import { describe, expect, test } from 'vitest';
import { type ForwardingHeader, forwardedClient } from '../../src/edge/forwarded.ts';
import { type TrustedProxies, trustedProxies } from '../../src/edge/trusted-proxies.ts';

/** TRUST_PROXY's value as the proxies it trusts (the test fails on a refused value). */
function trusting(value: string): TrustedProxies {
  const trusted = trustedProxies(value);
  if (typeof trusted === 'string') throw new Error(`${value}: ${trusted}`);
  return trusted;
}

/** The client of a request from `peer` with `headers`, trusting `value`, reading `header`. */
function clientOf(value: string, peer: string, headers: Record<string, string>, header?: ForwardingHeader): string {
  return forwardedClient(trusting(value), header ?? 'x-forwarded-for', peer, {
    header: (name) => headers[name] ?? null,
  });
}

/** An IPv6 address's text from its 128 bits. */
const ipv6 = (bits: bigint) =>
  Array.from({ length: 8 }, (_, group) => ((bits >> BigInt(112 - 16 * group)) & 0xffffn).toString(16)).join(':');

/**
 * Every address as ranges none of which holds a family whole: at each bit of the path to
 * ::ffff:0:0/96 the block beside it (2000::/3 in two), then IPv4 in two halves.
 */
function everyAddressInPieces(): string[] {
  const mapped = 0xffffn << 32n;
  const pieces: string[] = [];
  for (let bit = 0; bit < 96; bit++) {
    const beside = ((mapped >> BigInt(127 - bit)) ^ 1n) << BigInt(127 - bit);
    if (bit === 2) pieces.push('2000::/4', '3000::/4');
    else pieces.push(`${ipv6(beside)}/${bit + 1}`);
  }
  return [...pieces, '0.0.0.0/1', '128.0.0.0/1'];
}

describe('TRUST_PROXY', () => {
  test('a number of hops from 1 to 32', () => {
    expect(trustedProxies('1')).toEqual({ hops: 1 });
    expect(trustedProxies(' 2 ')).toEqual({ hops: 2 });
    expect(trustedProxies('0')).toBe('must be a number of hops from 1 to 32');
    expect(trustedProxies('33')).toBe('must be a number of hops from 1 to 32');
  });

  test('addresses, CIDR ranges and the names loopback and private, comma-separated', () => {
    const trusted = trusting('192.0.2.7, 10.0.0.0/8, 2001:db8::/32, loopback, PRIVATE');
    for (const address of ['192.0.2.7', '10.200.3.4', '2001:db8:ffff::1', '127.0.0.9', '::1', '172.31.255.255'])
      expect(clientOf('192.0.2.7, 10.0.0.0/8, 2001:db8::/32, loopback, private', address, {})).toBe(address);
    expect('ranges' in trusted && trusted.ranges).toHaveLength(9);
  });

  test('an entry that is no address, range or name is refused by its place', () => {
    const problem = (place: number) =>
      `entry ${place} is not an IP address, a CIDR range (such as 10.0.0.0/8) or one of loopback, private ` +
      '(or give a number of hops, or every-peer, alone)';
    expect(trustedProxies('10.0.0.1, nginx')).toBe(problem(2));
    expect(trustedProxies('10.0.0.0/33')).toBe(problem(1));
    expect(trustedProxies('2001:db8::/129')).toBe(problem(1));
    expect(trustedProxies('10.0.0.0/8/8')).toBe(problem(1));
    expect(trustedProxies('10.0.0.0/x')).toBe(problem(1));
    expect(trustedProxies('10.0.0.1,,10.0.0.2')).toBe(problem(2));
    expect(trustedProxies('1, 10.0.0.1')).toBe(problem(1));
    for (const name of ['constructor', '__proto__', 'toString']) expect(trustedProxies(name)).toBe(problem(1));
    expect(trustedProxies('loopback, every-peer')).toBe(problem(2));
  });

  test('a range that covers a whole address family is refused, naming the entry and why', () => {
    const refusal = (place: number, entry: string, family: string) =>
      `entry ${place} (${entry}) covers ${family}, so every client could name its own address: list the ` +
      "proxies' own addresses or ranges (write every-peer alone to trust every peer on purpose)";
    expect(trustedProxies('::/0')).toBe(refusal(1, '::/0', 'every address'));
    expect(trustedProxies('loopback, 0.0.0.0/0')).toBe(refusal(2, '0.0.0.0/0', 'every IPv4 address'));
    expect(trustedProxies('10.1.2.3/0')).toBe(refusal(1, '10.1.2.3/0', 'every IPv4 address'));
    // IPv4 as IPv6 sees it (IPv4-mapped), and wider prefixes that hold it.
    for (const entry of ['::ffff:0:0/96', '::/80', '::/1', '8000::/0'])
      expect(trustedProxies(entry)).toMatch(new RegExp(`^entry 1 \\(${entry.replaceAll('.', '\\.')}\\) covers every`));
    expect(trustedProxies('2000::/3')).toBe(refusal(1, '2000::/3', 'every public IPv6 address (2000::/3)'));
    expect(trustedProxies('::/2')).toBe(refusal(1, '::/2', 'every IPv4 address'));
  });

  test('ranges that together cover a whole family are refused, naming the entries needed and why', () => {
    const beside = everyAddressInPieces();
    const places = beside.map((_, at) => at + 1);
    const cases = [
      ['0.0.0.0/1,128.0.0.0/1', '1 and 2 (0.0.0.0/1, 128.0.0.0/1)', 'every IPv4 address'],
      // IPv4 as IPv6 sees it (IPv4-mapped), alone and mixed with the IPv4 spelling.
      ['::ffff:0:0/97, ::ffff:8000:0/97', '1 and 2 (::ffff:0:0/97, ::ffff:8000:0/97)', 'every IPv4 address'],
      ['0.0.0.0/1, ::ffff:8000:0/97', '1 and 2 (0.0.0.0/1, ::ffff:8000:0/97)', 'every IPv4 address'],
      ['2000::/4, 3000::/4', '1 and 2 (2000::/4, 3000::/4)', 'every public IPv6 address (2000::/3)'],
      [
        beside.join(','),
        `${places.slice(0, -1).join(', ')} and ${places.at(-1)} (${beside.join(', ')})`,
        'every address',
      ],
      // Many pieces, in any order, among entries that are not needed (named or not).
      [
        'loopback, 128.0.0.0/1, 10.0.0.1, 64.0.0.0/2, 0.0.0.0/2, 127.0.0.1',
        '2, 4 and 5 (128.0.0.0/1, 64.0.0.0/2, 0.0.0.0/2)',
        'every IPv4 address',
      ],
      [
        'private, 0.0.0.0/1, 128.0.0.0/2, 192.0.0.0/3, 224.0.0.0/3',
        '2, 3, 4 and 5 (0.0.0.0/1, 128.0.0.0/2, 192.0.0.0/3, 224.0.0.0/3)',
        'every IPv4 address',
      ],
    ];
    for (const [value = '', entries, family] of cases)
      expect(trustedProxies(value), value).toBe(
        `entries ${entries} together cover ${family}, so every client could name its own address: list the ` +
          "proxies' own addresses or ranges (write every-peer alone to trust every peer on purpose)",
      );
  });

  test('ranges that leave one address of each family out are accepted', () => {
    // Every IPv4 address but 255.255.255.255: /1, /2, ... /32 halves of what is left.
    const allButLast = Array.from({ length: 32 }, (_, bits) => {
      const start = bits === 0 ? 0 : 2 ** 32 - 2 ** (32 - bits);
      return `${[24, 16, 8, 0].map((shift) => Math.floor(start / 2 ** shift) % 256).join('.')}/${bits + 1}`;
    });
    expect(trustedProxies(allButLast.join(',')), allButLast.join(',')).toHaveProperty('ranges');
    expect(trustedProxies([...allButLast, '255.255.255.255'].join(','))).toMatch(
      /^entries .* together cover every IPv4/,
    );
    expect(trustedProxies('2000::/4, 3000::/5, 3800::/5')).toMatch(/together cover every public IPv6/);
    expect(trustedProxies('2000::/4, 3000::/5, 3800::/6')).toHaveProperty('ranges');
  });

  test('ranges just narrower than a whole family are accepted', () => {
    for (const entry of ['0.0.0.0/1', '128.0.0.0/1', '::ffff:0:0/97', '2000::/4', '3000::/4', 'fc00::/7'])
      expect(trustedProxies(entry), entry).toHaveProperty('ranges');
  });

  test('every-peer, alone, trusts every peer in both families on purpose', () => {
    expect(trustedProxies(' Every-Peer ')).toMatchObject({ everyPeer: true });
    for (const peer of ['198.51.100.5', '2001:db8::5', '::1', '0.0.0.0'])
      expect(clientOf('every-peer', peer, { 'x-forwarded-for': '203.0.113.9' }), peer).toBe('203.0.113.9');
  });
});

describe('the client behind trusted proxies', () => {
  const xff = (value: string) => ({ 'x-forwarded-for': value });

  test('a peer that is not trusted is the client, whatever it forwards: a spoofed header changes nothing', () => {
    let read = 0;
    const request = {
      header: () => {
        read++;
        return '192.0.2.66';
      },
    };
    expect(forwardedClient(trusting('127.0.0.1'), 'x-forwarded-for', '198.51.100.5', request)).toBe('198.51.100.5');
    expect(read).toBe(0);
    expect(clientOf('10.0.0.0/8', '11.0.0.1', { ...xff('192.0.2.66'), forwarded: 'for=192.0.2.67' })).toBe('11.0.0.1');
  });

  test("a trusted peer's X-Forwarded-For: the rightmost address that is not trusted", () => {
    expect(clientOf('127.0.0.1', '127.0.0.1', xff('203.0.113.9'))).toBe('203.0.113.9');
    // What the client wrote itself sits to the left of the address its proxy appended.
    expect(clientOf('127.0.0.1', '127.0.0.1', xff('192.0.2.66, 1.1.1.1, 203.0.113.9'))).toBe('203.0.113.9');
  });

  test('the walk passes every trusted hop, and stops at the first that is not', () => {
    const chain = xff('192.0.2.66, 203.0.113.9, 10.0.0.2, 10.0.0.3');
    expect(clientOf('10.0.0.0/8', '10.0.0.4', chain)).toBe('203.0.113.9');
  });

  test('when every forwarded address is trusted, the leftmost is the client', () => {
    expect(clientOf('10.0.0.0/8', '10.0.0.4', xff('10.0.0.1, 10.0.0.2'))).toBe('10.0.0.1');
  });

  test('a trusted peer that forwards no address, or an empty header, is the client itself', () => {
    expect(clientOf('loopback', '127.0.0.1', {})).toBe('127.0.0.1');
    expect(clientOf('loopback', '127.0.0.1', xff(' , '))).toBe('127.0.0.1');
  });

  test('a hop count trusts that many nearest hops, the peer first; with fewer, the leftmost is the client', () => {
    const chain = xff('192.0.2.66, 203.0.113.9, 198.51.100.1');
    expect(clientOf('1', '198.51.100.200', chain)).toBe('198.51.100.1');
    expect(clientOf('2', '198.51.100.200', chain)).toBe('203.0.113.9');
    expect(clientOf('5', '198.51.100.200', chain)).toBe('192.0.2.66');
  });

  test('an IPv4-mapped peer (a dual-stack socket) is its IPv4 address to the trust list', () => {
    expect(clientOf('127.0.0.1', '::ffff:127.0.0.1', xff('203.0.113.9'))).toBe('203.0.113.9');
    expect(clientOf('::ffff:127.0.0.0/104', '127.0.0.1', xff('203.0.113.9'))).toBe('203.0.113.9');
  });

  test('ranges hold exactly their prefix: 172.16.0.0/12, fd00::/8, and IPv4 apart from IPv6', () => {
    expect(clientOf('172.16.0.0/12', '172.31.255.255', xff('203.0.113.9'))).toBe('203.0.113.9');
    expect(clientOf('172.16.0.0/12', '172.32.0.0', xff('203.0.113.9'))).toBe('172.32.0.0');
    expect(clientOf('172.16.0.0/12', '172.15.255.255', xff('203.0.113.9'))).toBe('172.15.255.255');
    expect(clientOf('fd00::/8', 'fdff::1', xff('203.0.113.9'))).toBe('203.0.113.9');
    expect(clientOf('fd00::/8', 'fe00::1', xff('203.0.113.9'))).toBe('fe00::1');
    expect(clientOf('0.0.0.0/1', '::1', xff('203.0.113.9'))).toBe('::1');
    expect(clientOf('0.0.0.0/1', '127.255.255.255', xff('203.0.113.9'))).toBe('203.0.113.9');
    expect(clientOf('0.0.0.0/1', '128.0.0.0', xff('203.0.113.9'))).toBe('128.0.0.0');
  });

  test('a forwarded address comes without brackets or port', () => {
    expect(clientOf('loopback', '127.0.0.1', xff('203.0.113.9:5123'))).toBe('203.0.113.9');
    expect(clientOf('loopback', '127.0.0.1', xff('[2001:db8::9]:443'))).toBe('2001:db8::9');
    expect(clientOf('loopback', '127.0.0.1', xff('2001:db8::9'))).toBe('2001:db8::9');
  });

  test('a node that is not an address, written by a trusted hop, is the client as written', () => {
    expect(clientOf('loopback', '127.0.0.1', xff('192.0.2.66, unknown'))).toBe('unknown');
  });
});

describe('Forwarded (RFC 7239)', () => {
  const forwarded = (value: string) => ({ forwarded: value });
  const of = (value: string, trusted = 'loopback') => clientOf(trusted, '127.0.0.1', forwarded(value), 'forwarded');

  test("each element's for= node, walked from the right as X-Forwarded-For is", () => {
    expect(of('for=192.0.2.66, for=203.0.113.9')).toBe('203.0.113.9');
    expect(of('for=203.0.113.9;proto=https;by=127.0.0.1')).toBe('203.0.113.9');
    expect(of('For="203.0.113.9", for=10.0.0.1', 'loopback, 10.0.0.0/8')).toBe('203.0.113.9');
  });

  test('a quoted IPv6 node with a port, and an IPv4 one with a port, are their addresses', () => {
    expect(of('for="[2001:db8:cafe::17]:4711"')).toBe('2001:db8:cafe::17');
    expect(of('for="203.0.113.9:4711"')).toBe('203.0.113.9');
  });

  test('commas and semicolons inside a quoted string split nothing', () => {
    expect(of('for=192.0.2.66;by="a,b;c", for=203.0.113.9;host="x,y"')).toBe('203.0.113.9');
    expect(of('by="a,for=192.0.2.66";for=203.0.113.9')).toBe('203.0.113.9');
  });

  test('an element without for= is unknown, and unknown or a hidden name is the client as written', () => {
    expect(of('for=192.0.2.66, proto=https')).toBe('unknown');
    expect(of('for=192.0.2.66, for=_hidden')).toBe('_hidden');
  });

  test('only the header the operator names is read', () => {
    const both = { 'x-forwarded-for': '192.0.2.66', forwarded: 'for=203.0.113.9' };
    expect(clientOf('loopback', '127.0.0.1', both, 'forwarded')).toBe('203.0.113.9');
    expect(clientOf('loopback', '127.0.0.1', both, 'x-forwarded-for')).toBe('192.0.2.66');
  });
});
