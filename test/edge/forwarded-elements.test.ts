// Forwarded as RFC 7239 writes it (src/edge/forwarded-elements.ts), and the client it names
// behind trusted proxies (issue 55, finding 1): elements split at commas outside quoted-strings,
// read from the right, so what a client sent, however malformed, never changes the element a
// trusted proxy appended after it, on the same header line or on its own.
import { describe, expect, test } from 'vitest';
import { forwardedClient } from '../../src/edge/forwarded.ts';
import { type ForwardedElement, forwardedElements } from '../../src/edge/forwarded-elements.ts';
import { trustedProxies } from '../../src/edge/trusted-proxies.ts';

/** The elements as plain objects (null for a malformed one), for comparing. */
const elementsOf = (value: string) =>
  forwardedElements(value).map((element: ForwardedElement) => (element ? Object.fromEntries(element) : null));

/** The client of a request from nginx on 127.0.0.1, trusting `trust`, with `value` as its Forwarded. */
function clientOf(value: string, trust = '127.0.0.1'): string {
  const trusted = trustedProxies(trust);
  if (typeof trusted === 'string') throw new Error(trusted);
  return forwardedClient(trusted, 'forwarded', '127.0.0.1', {
    header: (name) => (name === 'forwarded' ? value : null),
  });
}

describe('the elements of a Forwarded value', () => {
  test('pairs by lower-case name, values unquoted and unescaped, left to right', () => {
    expect(elementsOf('For=192.0.2.60;PROTO=http;by="[2001:db8::1]:80", for="_a\\"b"')).toEqual([
      { for: '192.0.2.60', proto: 'http', by: '[2001:db8::1]:80' },
      { for: '_a"b' },
    ]);
  });

  test('commas and semicolons inside a quoted-string split nothing', () => {
    expect(elementsOf('for=a;by="x, y; z", for=b')).toEqual([{ for: 'a', by: 'x, y; z' }, { for: 'b' }]);
  });

  test('empty list elements, empty pairs and white space around separators are allowed and left out', () => {
    expect(elementsOf(' , for=a ; ;proto=https ,, \t for=b ,')).toEqual([{ for: 'a', proto: 'https' }, { for: 'b' }]);
    expect(elementsOf(', ,')).toEqual([]);
  });

  test('a quote after an even run of backslashes closes the string; after an odd run it is content', () => {
    expect(elementsOf('by="a\\\\", for=b')).toEqual([{ by: 'a\\' }, { for: 'b' }]);
    expect(elementsOf('by="a\\\\\\"b", for=c')).toEqual([{ by: 'a\\"b' }, { for: 'c' }]);
  });

  test("an unclosed quote makes its element and everything left of it one malformed element, never the proxy's", () => {
    // The attack: the client's open quote would swallow the element nginx appends.
    expect(elementsOf('for=127.0.0.12;x=", for=127.0.0.44')).toEqual([null, { for: '127.0.0.44' }]);
    // A naive left-to-right scan pairs the client's quote with the proxy's and loses its element.
    expect(elementsOf('for=1.2.3.4;x="a, for="[2001:db8::1]"')).toEqual([null, { for: '[2001:db8::1]' }]);
    expect(elementsOf('for=1.1.1.1, by="a\\", for=2.2.2.2')).toEqual([null, { for: '2.2.2.2' }]);
  });

  test('whatever is not the grammar makes the element malformed: a bare word, a space in a value, a control', () => {
    for (const bad of ['for', 'for=', '=1.2.3.4', 'for=1.2.3.4 5', 'for="a\u0001b"', 'for=a=b', 'for=<a>', 'x"y'])
      expect(elementsOf(`${bad}, for=203.0.113.9`), bad).toEqual([null, { for: '203.0.113.9' }]);
  });

  test('a parameter given twice in one element makes it malformed (RFC 7239: at most once)', () => {
    expect(elementsOf('for=1.1.1.1;FOR=2.2.2.2, for=3.3.3.3')).toEqual([null, { for: '3.3.3.3' }]);
  });
});

describe('the client, when what a client wrote is malformed', () => {
  test("nginx's element appended on the same line is the client, whatever the client opened before it", () => {
    expect(clientOf('for=127.0.0.12;x=", for=127.0.0.44')).toBe('127.0.0.44');
    expect(clientOf('for="evil7, for=127.0.0.44')).toBe('127.0.0.44');
    expect(clientOf('for=1.2.3.4;x="a, for="[2001:db8::1]"')).toBe('2001:db8::1');
  });

  test('on its own header line (joined by ", " as RFC 9110 joins a list) the same', () => {
    expect(clientOf(['for=127.0.0.12;x="', 'for=127.0.0.44'].join(', '))).toBe('127.0.0.44');
  });

  test('a malformed element the walk reaches past trusted hops names no one: unknown', () => {
    expect(clientOf('for=192.0.2.1;x="a, for=127.0.0.5', 'loopback')).toBe('unknown');
  });
});
