// The scheme and host a request came to, as trusted proxies forward them (src/edge/forwarded.ts,
// forwardedOrigin), by the same walk as the client's address: the links an app makes (the
// Discord app's embeds) point at the public origin, never at one a client wrote.
import { describe, expect, test } from 'vitest';
import { type ForwardingHeader, forwardedOrigin } from '../../src/edge/forwarded.ts';
import { trustedProxies } from '../../src/edge/trusted-proxies.ts';

/** The origin forwarded to a server trusting `trust`, from `peer`, with `headers`, reading `header`. */
function originOf(headers: Record<string, string>, header: ForwardingHeader, trust = 'loopback', peer = '127.0.0.1') {
  const trusted = trustedProxies(trust);
  if (typeof trusted === 'string') throw new Error(trusted);
  return forwardedOrigin(trusted, header, peer, { header: (name) => headers[name] ?? null });
}

const NONE = { proto: undefined, host: undefined };

describe('Forwarded: proto= and host=', () => {
  const of = (value: string, trust?: string) => originOf({ forwarded: value }, 'forwarded', trust);

  test('the element of the proxy that met the client gives them', () => {
    expect(of('for=203.0.113.9;proto=https;host=data.example.org')).toEqual({
      proto: 'https',
      host: 'data.example.org',
    });
    expect(of('for=203.0.113.9;proto=HTTP;host="data.example.org:8443"')).toEqual({
      proto: 'http',
      host: 'data.example.org:8443',
    });
  });

  test('what a client wrote left of that element is never read', () => {
    const value = 'for=192.0.2.1;proto=https;host=evil.example, for=203.0.113.9;proto=http;host=data.example.org';
    expect(of(value)).toEqual({ proto: 'http', host: 'data.example.org' });
    expect(of('host=evil.example;proto=https, for=203.0.113.9')).toEqual(NONE);
  });

  test("behind several trusted proxies, the outermost's view: the public scheme and host", () => {
    const value = 'for=203.0.113.9;proto=https;host=data.example.org, for=10.0.0.2;proto=http;host="internal:4321"';
    expect(of(value, 'loopback, 10.0.0.0/8')).toEqual({ proto: 'https', host: 'data.example.org' });
  });

  test('what the outermost leaves out comes from the nearest trusted hop after it that has it', () => {
    const value = 'for=203.0.113.9;host=data.example.org, for=10.0.0.2;proto=https;host=internal';
    expect(of(value, 'loopback, 10.0.0.0/8')).toEqual({ proto: 'https', host: 'data.example.org' });
  });

  test('a scheme other than http or https, and a host that is no authority, are none', () => {
    for (const host of ['"a/b"', '"user@a"', '"a b"', '"a:99999999"', '"[zz::1]"', '""'])
      expect(of(`for=203.0.113.9;proto=ftp;host=${host}`), host).toEqual(NONE);
    expect(of('for=203.0.113.9;host="[2001:db8::1]:443"')).toEqual({ proto: undefined, host: '[2001:db8::1]:443' });
  });
});

describe('X-Forwarded-Proto and X-Forwarded-Host, with X-Forwarded-For', () => {
  test("one value each, as nginx's proxy_set_header sets them", () => {
    const headers = {
      'x-forwarded-for': '192.0.2.66, 203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'data.example.org',
    };
    expect(originOf(headers, 'x-forwarded-for')).toEqual({ proto: 'https', host: 'data.example.org' });
  });

  test("lists are aligned with X-Forwarded-For from the right: the client's entry, never one it wrote", () => {
    const headers = {
      'x-forwarded-for': '192.0.2.66, 203.0.113.9, 10.0.0.2',
      'x-forwarded-proto': 'http, https, http',
      'x-forwarded-host': 'evil.example, data.example.org, internal',
    };
    expect(originOf(headers, 'x-forwarded-for', 'loopback, 10.0.0.0/8')).toEqual({
      proto: 'https',
      host: 'data.example.org',
    });
  });

  test('only the header named is read: X-Forwarded-* count with X-Forwarded-For, proto=/host= with Forwarded', () => {
    const headers = {
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      forwarded: 'for=203.0.113.9;proto=http;host=other.example',
    };
    expect(originOf(headers, 'forwarded')).toEqual({ proto: 'http', host: 'other.example' });
    expect(originOf(headers, 'x-forwarded-for')).toEqual({ proto: 'https', host: undefined });
  });
});

describe('from anyone else', () => {
  test('a peer that is not trusted forwards nothing, whatever it sends', () => {
    const headers = {
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example',
      forwarded: 'for=203.0.113.9;proto=https;host=evil.example',
    };
    expect(originOf(headers, 'x-forwarded-for', 'loopback', '198.51.100.7')).toEqual(NONE);
    expect(originOf(headers, 'forwarded', 'loopback', '198.51.100.7')).toEqual(NONE);
  });

  test('a trusted peer that forwards no client forwards no origin either', () => {
    expect(originOf({ 'x-forwarded-proto': 'https' }, 'x-forwarded-for')).toEqual(NONE);
  });
});
