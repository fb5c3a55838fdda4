// The Node adapter's request translation: the plain-pattern shortcut for request targets
// must give exactly what a WHATWG URL parser gives, and repeated headers read as fetch's
// Headers joins them.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { EdgeResponse } from '../../src/edge/core.ts';
import type { BodyStore } from '../../src/server/body-store.ts';
import { decisionSender, rawHeader, requestTarget, requestUrl } from '../../src/server/node-adapter.ts';

/** What a URL parser makes of a target: the reference the shortcut must match. */
function parsedByUrl(target: string) {
  const url = requestUrl(target);
  return url && { pathname: url.pathname, query: url.search.slice(1) };
}

const targetCharacter = fc.constantFrom(...'/?#.%\\\'"<>`{}|^[] +&=;:@!$()*,~_-aAzZ09é\t'.split(''));
const anyTarget = fc.oneof(
  fc.string({ unit: targetCharacter, maxLength: 40 }).map((rest) => `/${rest}`),
  fc.string({ unit: 'binary', maxLength: 40 }).map((rest) => `/${rest}`),
  fc.string({ unit: targetCharacter, maxLength: 40 }),
);

describe('requestTarget', () => {
  test('gives the path and query a URL parser gives, for any target', () => {
    fc.assert(
      fc.property(anyTarget, (target) => {
        expect({ target, parsed: requestTarget(target) }).toEqual({ target, parsed: parsedByUrl(target) });
      }),
      { numRuns: 5_000 },
    );
  });

  test.each([
    ['/api/trees', '/api/trees', ''],
    ['/api/trees?search=Oak%20Tree', '/api/trees', 'search=Oak%20Tree'],
    ['/api/trees?', '/api/trees', ''],
    ['/api/./trees/../cutters', '/api/cutters', ''],
    ['/api/trees?search=a#fragment', '/api/trees', 'search=a'],
    ['//api/trees', '//api/trees', ''],
    ["/api/trees?search='x'", '/api/trees', 'search=%27x%27'],
  ])('%s: path %s, query %s', (target, pathname, query) => {
    expect(requestTarget(target)).toEqual({ pathname, query });
  });

  test('a target no URL parser accepts gives undefined', () => {
    expect(requestTarget('http://[::1')).toBeUndefined();
  });
});

describe('rawHeader', () => {
  const raw = ['Host', 'x', 'Accept-Encoding', 'br', 'authorization', 'Bearer a', 'ACCEPT-ENCODING', 'gzip'];

  test('matches the name in any letter case', () => {
    expect(rawHeader(raw, 'authorization')).toBe('Bearer a');
  });

  test('joins the values of a repeated header with ", ", in the order sent', () => {
    expect(rawHeader(raw, 'accept-encoding')).toBe('br, gzip');
  });

  test('drops an empty value before any other, as workerd does; keeps one after', () => {
    expect(rawHeader(['Authorization', '', 'Authorization', 'Bearer a'], 'authorization')).toBe('Bearer a');
    expect(rawHeader(['Authorization', '', 'Authorization', '', 'Authorization', 'a'], 'authorization')).toBe('a');
    expect(rawHeader(['Authorization', 'Bearer a', 'Authorization', ''], 'authorization')).toBe('Bearer a, ');
  });

  test('is null for a header not sent', () => {
    expect(rawHeader(raw, 'if-none-match')).toBeNull();
  });

  test('folds only ASCII letters: a name differing in another character is another header', () => {
    // "-" is 32 above CR; "K" (the Kelvin sign) lower-cases to "k" outside ASCII.
    expect(rawHeader(['If\rnone-match', 'x'], 'if-none-match')).toBeNull();
    expect(rawHeader(['X-To\u212Aen', 'x'], 'x-token')).toBeNull();
    // "^" is 32 below "~", as "T" is below "t", but no letter.
    expect(rawHeader(['x^y', 'x'], 'x~y')).toBeNull();
  });
});

describe('decisionSender', () => {
  test('requests sharing one answer get their own RateLimit value each; one without a value gets none', async () => {
    const answer: EdgeResponse = {
      type: 'respond',
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: { text: '{"error":false}' },
      encoding: 'identity',
      omitBody: false,
    };
    const noStoredBodies: Pick<BodyStore, 'bytes'> = {
      bytes: () => {
        throw new Error('this answer has no stored body');
      },
    };
    const send = decisionSender(noStoredBodies);
    // The request says which RateLimit value it gets, as a count would.
    const server = createServer((request, response) => {
      const value = request.headers['x-rate-limit'];
      send(response, answer, typeof value === 'string' ? value : undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const rateLimits = [];
      for (const value of ['"token";r=2;t=9', undefined, '"token";r=1;t=9']) {
        const response = await fetch(url, { headers: value === undefined ? {} : { 'X-Rate-Limit': value } });
        expect(await response.text()).toBe('{"error":false}');
        rateLimits.push(response.headers.get('ratelimit'));
      }
      expect(rateLimits).toEqual(['"token";r=2;t=9', null, '"token";r=1;t=9']);
    } finally {
      server.close();
    }
  });

  const OWN_HEADERS =
    "a response's headers are its own: a later request's RateLimit value never shows on an earlier one";
  test(OWN_HEADERS, async () => {
    const answer: EdgeResponse = {
      type: 'respond',
      status: 204,
      headers: { 'Cache-Control': 'no-store' },
      body: undefined,
      encoding: 'identity',
      omitBody: false,
    };
    const send = decisionSender({ bytes: () => Buffer.alloc(0) });
    const responses: ServerResponse[] = [];
    const server = createServer((request, response) => {
      send(response, answer, String(request.headers['x-rate-limit']));
      responses.push(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      for (const value of ['"token";r=2;t=9', '"token";r=1;t=9'])
        await (await fetch(url, { headers: { 'X-Rate-Limit': value } })).arrayBuffer();
      const [first] = responses;
      expect(first?.getHeader('RateLimit')).not.toBe('"token";r=1;t=9');
    } finally {
      server.close();
    }
  });
});
