// The key a rate limit counts a client address under (src/edge/client-address.ts), the same in
// the Node server's count and the Worker's: IPv4 whole, IPv6 by its /64.
import { describe, expect, test } from 'vitest';
import { addressKey } from '../../src/edge/client-address.ts';

/** The key every client that is not an IP address shares (RFC 7239's word for a node not known). */
const NOT_AN_ADDRESS = 'unknown';

describe('the address key', () => {
  test('an IPv4 address is its own key', () => {
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('192.0.2.2')).toBe('192.0.2.2');
  });

  test('an IPv4 address is keyed as written without leading zeros or surrounding white space', () => {
    expect(addressKey('192.000.2.01')).toBe('192.0.2.1');
    expect(addressKey(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(addressKey('255.255.255.001')).toBe('255.255.255.1');
  });

  test('an IPv4 address is four parts of up to three digits, each at most 255', () => {
    for (const text of ['1.02.3', '1.2.3.04.5', '300.01.1.1', '1e2.0.0.01', '0x10.0.0.01', '1.2.3.1234'])
      expect(addressKey(text)).toBe(NOT_AN_ADDRESS);
  });

  test('IPv6 addresses of one /64 share a key; another /64 has its own', () => {
    const key = addressKey('2001:db8:1:2::1');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:db8:1:2:a:b:c:d')).toBe(key);
    expect(key).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
  });

  test('every spelling of an IPv6 address is one key: ::, leading zeros, upper case, zone id, brackets', () => {
    const key = addressKey('2001:db8:0:0:1:2:3:4');
    for (const spelling of [
      '2001:db8::1:2:3:4',
      '2001:0DB8:0000:0000:0001:0002:0003:0004',
      '2001:db8::1:2:3:4%eth0',
      '[2001:db8::1:2:3:4]',
      ' 2001:db8::1:2:3:4 ',
    ])
      expect(addressKey(spelling)).toBe(key);
    expect(addressKey('::')).toBe('0:0:0:0::/64');
    expect(addressKey('::1')).toBe(addressKey('0:0:0:0:0:0:0:2'));
    expect(addressKey('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
  });

  test(':: stands for one group or more, never for none', () => {
    expect(addressKey('2001:db8:1:2:3:4:5::')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::3:4:5:6')).toBe(NOT_AN_ADDRESS);
  });

  test('brackets count only around the whole address', () => {
    for (const text of ['::[1]', '[2001:db8::1]1']) expect(addressKey(text)).toBe(NOT_AN_ADDRESS);
  });

  test('an IPv4-mapped IPv6 address is its IPv4 address, as a dual-stack socket gives it', () => {
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::FFFF:c000:0201')).toBe('192.0.2.1');
    expect(addressKey('::ffff:192.0.2.2')).not.toBe(addressKey('::ffff:192.0.2.1'));
    expect(addressKey('::ffff:192.168.100.200')).toBe('192.168.100.200');
  });

  test('only ::ffff:0:0/96 is IPv4, mapped: its first 80 bits all zero', () => {
    expect(addressKey('2001:db8::ffff:c000:201')).toBe('2001:db8:0:0::/64');
  });

  test('an IPv4 tail that is not an IPv4 address makes no address', () => {
    for (const text of ['::ffff:300.1.1.1', '::ffff:192.0.2.1x']) expect(addressKey(text)).toBe(NOT_AN_ADDRESS);
  });

  test('an IPv6 address with an IPv4 tail that is not mapped is keyed by its /64 like any other', () => {
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  test('whatever is not an address, of any length, shares one key: a new name is no new count', () => {
    const names = ['', 'unknown', '_hidden', `_${'x'.repeat(8000)}`, '2001:db8::1::2', '1:2:3:4:5:6:7:8:9', '12345::'];
    for (const text of names) expect(addressKey(text), text.slice(0, 20)).toBe(NOT_AN_ADDRESS);
    // It is no address's key.
    for (const address of ['0.0.0.0', '::', '192.0.2.1']) expect(addressKey(address)).not.toBe(NOT_AN_ADDRESS);
  });
});
