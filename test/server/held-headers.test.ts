// Held headers (src/server/held-headers.ts): an answer's headers checked once and handed to
// node:http as a response holds them, which must write exactly what writeHead writes of the
// same headers, refuse what writeHead refuses, and step aside where it cannot hold them.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { headersCanBeHeld, holdHeaders, writeHeld } from '../../src/server/held-headers.ts';
import { type RawResponse, rawExchange } from '../support/http.ts';

const FLAT = [
  'Content-Type',
  'application/json; charset=utf-8',
  'ETag',
  '"abc"',
  'RateLimit-Policy',
  '"token";q=10;w=60',
  'Content-Length',
  '2',
];

/** The responses of a server answering each request with `listener`, one after another on one connection. */
async function answered(listener: RequestListener, requests = 2): Promise<RawResponse[]> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return await rawExchange(
      origin,
      Array.from({ length: requests }, () => ({ target: '/' })),
    );
  } finally {
    server.close();
  }
}

/** What a response says apart from its Date, which moves with the clock. */
const withoutDate = ({ status, statusText, headerList, body }: RawResponse) => ({
  status,
  statusText,
  headerList: headerList.filter(([name]) => name !== 'Date'),
  body: body.toString(),
});

describe('held headers', () => {
  test('this Node takes held headers (else every answer goes through writeHead’s checks)', () => {
    expect(headersCanBeHeld()).toBe(true);
  });

  test('a response is written byte for byte as writeHead writes the same headers, for each request', async () => {
    const held = holdHeaders(FLAT);
    if (!held) throw new Error('headers not held');
    const heldResponses = await answered((_request, response) => {
      expect(writeHeld(response, 200, held)).toBe(true);
      response.end('{}');
    });
    const public_ = await answered((_request, response) => response.writeHead(200, FLAT).end('{}'));
    expect(heldResponses.map(withoutDate)).toEqual(public_.map(withoutDate));
    expect(heldResponses[0]?.headerList.map(([name]) => name)).toEqual([
      'Content-Type',
      'ETag',
      'RateLimit-Policy',
      'Content-Length',
      'Date',
      'Connection',
      'Keep-Alive',
    ]);
  });

  test('a response that holds a header of its own is left to writeHead, and keeps that header', async () => {
    const held = holdHeaders(FLAT);
    if (!held) throw new Error('headers not held');
    const [response] = await answered((_request, response) => {
      response.setHeader('Connection', 'close');
      expect(writeHeld(response, 200, held)).toBe(false);
      response.writeHead(200, FLAT).end('{}');
    }, 1);
    expect(response?.headers['connection']).toBe('close');
    expect(response?.headers['etag']).toBe('"abc"');
  });

  test('a header name writeHead refuses is refused when held, naming it', () => {
    expect(() => holdHeaders(['Bad Name', 'x'])).toThrow(/Header name must be a valid HTTP token \["Bad Name"\]/);
  });

  test('a header value writeHead refuses is refused when held, naming its header', () => {
    expect(() => holdHeaders(['X-Note', 'one\r\nSet-Cookie: two'])).toThrow(
      /Invalid character in header content \["X-Note"\]/,
    );
  });

  test('two names that are one header are not held: writeHead sends both', () => {
    expect(holdHeaders(['X-Note', 'one', 'x-note', 'two'])).toBeUndefined();
  });
});
