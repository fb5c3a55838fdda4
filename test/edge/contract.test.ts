// The API contract (docs/api-contract.md), one test per rule, against every runtime: the
// Node server in-process and the Worker in workerd. Expected bytes come from the built
// dist/ the runtimes serve; expected texts are the contract's own words.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { levelRoute, listRoute, nameRoute, notFoundRoute, RELEASES_ROUTE } from '../../src/contract/paths.ts';
import { apiFields, kinds, type KindId } from '../../src/schema/kinds.ts';
import type { BuildManifest as Manifest } from '../../src/schema/manifest.ts';
import { readManifest } from '../../src/server/body-store.ts';
import { rawExchange, rawRequest, type RawRequest, type RawResponse } from '../support/http.ts';
import { distDir, contractRuntimeNames, startRuntime, type Runtime } from '../support/runtimes.ts';
import { decodeBody } from '../support/builds.ts';
import { routeBytes, routeText } from '../support/dist-routes.ts';

const TOKEN = 'contract-plain-token';
const SECOND_TOKEN = 'contract-second-token';
/** Configured only through its digest (API_TOKEN_SHA256). */
const DIGEST_TOKEN = 'contract-digest-token';
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const UNKNOWN_ENDPOINT_MESSAGE = [
  'Unknown endpoint.',
  'The endpoints are /api/trees, /api/cutters, /api/gifts, /api/plots, /api/storages, /api/vehicles and /api/releases.',
].join(' ');
const TOKEN_REQUIRED = '{"error":true,"message":"An API token is required. Send it in the Authorization header."}';
const TOKEN_INVALID = '{"error":true,"message":"The provided API token is not valid."}';
const JSON_TYPE = 'application/json; charset=utf-8';

type ApiRecord = Record<string, unknown>;
interface Envelope {
  error: boolean;
  message: string;
  data?: ApiRecord[];
}

const listOf = (kind: KindId) => (JSON.parse(routeText(listRoute(kind))) as Envelope).data ?? [];
const treeNamed = (name: string) => listOf('trees').find((tree) => tree.name === name);
const notFoundText = (noun: string) =>
  `{"error":true,"message":"The requested ${noun} could not be found with the provided query. ` +
  'Please check the name or ID and try again."}';
const encodeSearch = (value: string) => `?search=${encodeURIComponent(value)}`;

/** The static assets' configuration files at the root of dist/, served by neither runtime. */
const ASSETS_CONFIG_FILES = ['_headers', '.assetsignore'];

/** Every file of the site as a URL path: dist/ but the API folder and the assets' configuration. */
function wikiPaths(): string[] {
  return readdirSync(distDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(distDir, join(entry.parentPath, entry.name)).split(/[\\/]/))
    .filter((segments) => segments[0] !== 'api' && !ASSETS_CONFIG_FILES.includes(segments.join('/')))
    .map((segments) => `/${segments.map(encodeURIComponent).join('/')}`);
}

/** Headers that differ between two identical requests (the clock) or belong to the connection. */
function comparableHeaders(response: RawResponse): Record<string, string> {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = response.headers;
  return rest;
}

describe.each(contractRuntimeNames)('%s runtime', (runtimeName) => {
  let runtime: Runtime;
  let manifest: Manifest;
  beforeAll(async () => {
    manifest = await readManifest(distDir);
    runtime = await startRuntime(runtimeName, {
      tokens: [TOKEN, SECOND_TOKEN],
      tokenSha256: [sha256Hex(DIGEST_TOKEN)],
    });
  });
  afterAll(() => runtime?.close());

  const bearer = (token = TOKEN): Record<string, string> => ({ Authorization: `Bearer ${token}` });
  /** A GET through fetch, with the token unless `headers` says otherwise. */
  const get = (path: string, headers: Record<string, string> = bearer()) => fetch(`${runtime.url}${path}`, { headers });
  const anonymous = (path: string, init: RequestInit = {}) => fetch(`${runtime.url}${path}`, init);
  const raw = (request: RawRequest) => rawRequest(runtime.url, request);
  const authorized = (token = TOKEN): [string, string][] => [['Authorization', `Bearer ${token}`]];
  /**
   * The responses to `requests` sent on one connection and followed by a GET of the tree
   * list, which parses only if no response sent a byte more than its framing says.
   */
  async function exchangeWithNothingExtra(requests: RawRequest[]): Promise<RawResponse[]> {
    const responses = await rawExchange(runtime.url, [...requests, { target: '/api/trees', headers: authorized() }]);
    expect(responses.pop()?.body.toString()).toBe(routeText(listRoute('trees')));
    return responses;
  }

  async function envelope(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; text: string; body: Envelope }> {
    const response = await get(path, headers);
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Envelope };
  }
  const names = async (path: string) => (await envelope(path)).body.data?.map((record) => record.name ?? record.level);

  describe('endpoints', () => {
    test.each(kinds.map((kind) => [kind.id, kind] as const))(
      '/api/%s serves the whole list, byte for byte the build',
      async (id) => {
        const { status, text } = await envelope(`/api/${id}`);
        expect(status).toBe(200);
        expect(text).toBe(routeText(listRoute(id)));
      },
    );

    test('a trailing slash is the same endpoint', async () => {
      for (const kind of kinds) {
        const { status, text } = await envelope(`/api/${kind.id}/`);
        expect({ kind: kind.id, status }).toEqual({ kind: kind.id, status: 200 });
        expect(text).toBe(routeText(listRoute(kind.id)));
      }
      expect((await envelope('/api/trees/?search=Oak%20Tree')).body.data).toEqual([treeNamed('Oak Tree')]);
    });

    test('HEAD has the status and headers of GET and no body', async () => {
      const requests: RawRequest[] = [
        { target: '/api/trees', headers: authorized() },
        { target: '/api/trees?search=5', headers: [...authorized(), ['Accept-Encoding', 'br']] },
        { target: '/api/cutters?search=unicorn', headers: authorized() },
        { target: '/api/unicorns', headers: authorized() },
        { target: '/api/trees' },
      ];
      for (const request of requests) {
        const got = await raw(request);
        // No body: nothing at all follows the headers on the wire.
        const [head] = await exchangeWithNothingExtra([{ ...request, method: 'HEAD' }]);
        expect({ target: request.target, status: head?.status }).toEqual({
          target: request.target,
          status: got.status,
        });
        expect(head && comparableHeaders(head)).toEqual(comparableHeaders(got));
      }
    });
  });

  describe('success', () => {
    test.each(kinds.map((kind) => [kind.id, kind] as const))(
      '%s: the body is {"error": false, "message": "The requested <noun> data was ...", "data": [...]}, in this order',
      async (id, kind) => {
        const { text, body } = await envelope(`/api/${id}?search=1`);
        expect(Object.keys(body)).toEqual(['error', 'message', 'data']);
        expect(
          text.startsWith(
            `{"error":false,"message":"The requested ${kind.noun} data was successfully found.","data":[`,
          ),
        ).toBe(true);
        expect(text.endsWith(']}')).toBe(true);
      },
    );

    test('data is an array, also for a single match', async () => {
      const { body } = await envelope('/api/trees?search=Oak%20Tree');
      expect(Array.isArray(body.data)).toBe(true);
      expect(body.data).toHaveLength(1);
    });

    // The schema's field order is pinned to the contract's list by test/build/envelopes.test.ts.
    test.each(kinds.map((kind) => [kind.id, kind] as const))(
      '%s records carry exactly the API fields, in the contract order',
      async (id, kind) => {
        const { body } = await envelope(`/api/${id}`);
        expect(body.data?.length).toBe(manifest.counts[id]);
        for (const record of body.data ?? []) expect(Object.keys(record)).toEqual(apiFields(kind));
      },
    );

    test('lists are ordered by level ascending', async () => {
      for (const kind of kinds) {
        const levels = (await envelope(`/api/${kind.id}`)).body.data?.map((record) => Number(record.level)) ?? [];
        expect(levels).toEqual([...levels].sort((a, b) => a - b));
      }
    });

    test('records sharing a level keep the order their content declares: gifts small, then medium', async () => {
      const gifts = await names('/api/gifts');
      expect(gifts?.slice(0, 2)).toEqual(['small', 'medium']);
    });
  });

  describe('search', () => {
    test('no search returns the whole list', async () => {
      expect((await envelope('/api/trees')).text).toBe(routeText(listRoute('trees')));
    });

    test('an empty or white-space search returns the whole list', async () => {
      for (const query of ['?search', '?search=', '?search=%20%20', '?search=+', '?search=%09%0A']) {
        expect({ query, text: (await envelope(`/api/trees${query}`)).text }).toEqual({
          query,
          text: routeText(listRoute('trees')),
        });
      }
    });

    test('search=null in any letter case returns the whole list', async () => {
      for (const value of ['null', 'NULL', 'Null', 'nUlL', ' null ']) {
        expect({ value, text: (await envelope(`/api/cutters${encodeSearch(value)}`)).text }).toEqual({
          value,
          text: routeText(listRoute('cutters')),
        });
      }
    });

    test('search=undefined in any letter case returns the whole list', async () => {
      for (const value of ['undefined', 'UNDEFINED', 'Undefined', ' undefined ']) {
        expect({ value, text: (await envelope(`/api/cutters${encodeSearch(value)}`)).text }).toEqual({
          value,
          text: routeText(listRoute('cutters')),
        });
      }
    });

    test('only the first search parameter counts', async () => {
      expect(await names('/api/trees?search=Oak%20Tree&search=Pine%20Tree')).toEqual(['Oak Tree']);
      expect((await envelope('/api/trees?search=null&search=Oak%20Tree')).text).toBe(routeText(listRoute('trees')));
      expect((await envelope('/api/trees?search=unicorn&search=Oak%20Tree')).status).toBe(404);
    });

    test('other query parameters are ignored', async () => {
      expect(await names('/api/trees?limit=1&search=Oak%20Tree&page=2')).toEqual(['Oak Tree']);
      expect((await envelope('/api/trees?limit=1&q=Oak%20Tree&Search=Oak%20Tree')).text).toBe(
        routeText(listRoute('trees')),
      );
    });

    test('the query is decoded as URLSearchParams does: + is a space, %XX is decoded', async () => {
      // " 5 " is a level search once decoded and trimmed; taken literally "+5+" would not be.
      expect((await envelope('/api/trees?search=+5+')).text).toBe(routeText(levelRoute('trees', 5)));
      expect((await envelope('/api/trees?search=%205%20')).text).toBe(routeText(levelRoute('trees', 5)));
      expect(await names('/api/cutters?search=Bread%20Knife')).toEqual(['Knife']);
    });

    test('a malformed percent sequence is kept as it is, as URLSearchParams does', async () => {
      const oakTree = await raw({ target: '/api/trees?search=Oak%Tree', headers: authorized() });
      expect(oakTree.status).toBe(200);
      expect((JSON.parse(oakTree.body.toString()) as Envelope).data).toEqual([treeNamed('Oak Tree')]);
      const trailing = await raw({ target: '/api/trees?search=Oak%20Tree%', headers: authorized() });
      expect(trailing.status).toBe(200);
    });

    test('a malformed percent sequence never causes a 500', async () => {
      const targets = [
        '/api/trees?search=%',
        '/api/trees?search=%zz',
        '/api/trees?search=%E0%A4%A',
        '/api/trees?search=%C3%28',
        '/api/trees?search=%ED%A0%80',
        '/api/trees?%=%&search=%%%',
        '/api/trees%',
        '/api/%zz',
        '/api/trees/%C0%AF',
      ];
      for (const target of targets) {
        const response = await raw({ target, headers: authorized() });
        expect([200, 404], target).toContain(response.status);
        expect(response.headers['content-type'], target).toBe(JSON_TYPE);
      }
    });

    test('surrounding white space is removed from the value', async () => {
      expect(await names(`/api/trees${encodeSearch('\t Oak Tree \n')}`)).toEqual(['Oak Tree']);
    });

    test('ASCII digits only are a level search: every record of that level, in list order', async () => {
      expect((await envelope('/api/trees?search=5')).body.data).toEqual(
        listOf('trees').filter((tree) => tree.level === 5),
      );
      expect(await names('/api/gifts?search=1')).toEqual(['small', 'medium']);
      expect((await envelope('/api/plots?search=3')).body.data).toEqual(
        listOf('plots').filter((plot) => plot.level === 3),
      );
    });

    test('leading zeros name the same level: 05 is 5', async () => {
      expect((await envelope('/api/trees?search=05')).text).toBe((await envelope('/api/trees?search=5')).text);
    });

    test('a level with no record is not found', async () => {
      for (const query of ['?search=0', '?search=107', '?search=99999999999999999999999']) {
        expect({ query, text: (await envelope(`/api/trees${query}`)).text }).toEqual({
          query,
          text: notFoundText('tree'),
        });
      }
    });

    test('digits that are not ASCII are not a level search', async () => {
      expect((await envelope(`/api/trees${encodeSearch('５')}`)).status).toBe(404);
      expect((await envelope(`/api/trees${encodeSearch('٥')}`)).status).toBe(404);
    });

    test('Oak Tree, oak tree, OAKTREE, oak-tree and oak_tree all find Oak Tree', async () => {
      for (const spelling of ['Oak Tree', 'oak tree', 'OAKTREE', 'oak-tree', 'oak_tree']) {
        expect({ spelling, data: (await envelope(`/api/trees${encodeSearch(spelling)}`)).body.data }).toEqual({
          spelling,
          data: [treeNamed('Oak Tree')],
        });
      }
    });

    test('the key is NFKD with combining marks removed: accents and compatibility forms find the name', async () => {
      for (const spelling of ['Óak Trëe', 'Ｏａｋ Ｔｒｅｅ', 'OA\u0301K TREE']) {
        expect({ spelling, names: await names(`/api/trees${encodeSearch(spelling)}`) }).toEqual({
          spelling,
          names: ['Oak Tree'],
        });
      }
    });

    test('breadknife finds Knife through its alias', async () => {
      expect(await names('/api/cutters?search=breadknife')).toEqual(['Knife']);
    });

    test('a name search finds one record of each named kind by its name', async () => {
      for (const kind of kinds.filter((candidate) => candidate.named)) {
        const [first] = listOf(kind.id);
        expect((await envelope(`/api/${kind.id}${encodeSearch(String(first?.name))}`)).body.data).toEqual([first]);
      }
    });

    test('an empty key is not found', async () => {
      for (const value of ['-_-', '!!!', '🌳', '\u0301']) {
        expect({ value, status: (await envelope(`/api/trees${encodeSearch(value)}`)).status }).toEqual({
          value,
          status: 404,
        });
      }
    });

    test('a name no record has is not found', async () => {
      expect((await envelope('/api/trees?search=unicorn')).text).toBe(notFoundText('tree'));
    });

    test('plots have no name: a name search for a plot is not found', async () => {
      for (const value of ['level 1', 'plot', 'level-1']) {
        expect({ value, text: (await envelope(`/api/plots${encodeSearch(value)}`)).text }).toEqual({
          value,
          text: notFoundText('plot'),
        });
      }
    });

    test('a value longer than 100 characters is not found', async () => {
      const padded = (length: number) => `Oak Tree${'-'.repeat(length - 'Oak Tree'.length)}`;
      expect((await envelope(`/api/trees${encodeSearch(padded(100))}`)).status).toBe(200);
      expect((await envelope(`/api/trees${encodeSearch(padded(101))}`)).text).toBe(notFoundText('tree'));
      expect((await envelope(`/api/trees${encodeSearch(`${'0'.repeat(100)}5`)}`)).status).toBe(404);
    });

    test('the 100 characters are counted after trimming, in characters rather than UTF-16 units', async () => {
      expect(
        (await envelope(`/api/trees${encodeSearch(`${' '.repeat(60)}Oak Tree${'-'.repeat(92)}${' '.repeat(60)}`)}`))
          .status,
      ).toBe(200);
      // 8 + 92 astral characters: 100 characters, 184 UTF-16 units.
      expect((await envelope(`/api/trees${encodeSearch(`Oak Tree${'🌳'.repeat(92)}`)}`)).status).toBe(200);
      expect((await envelope(`/api/trees${encodeSearch(`Oak Tree${'🌳'.repeat(93)}`)}`)).status).toBe(404);
    });
  });

  describe('not found', () => {
    test.each(kinds.map((kind) => [kind.id, kind] as const))(
      '%s: 404 with the message naming its noun and no data member',
      async (id, kind) => {
        const { status, text, body } = await envelope(`/api/${id}?search=999`);
        expect(status).toBe(404);
        expect(text).toBe(notFoundText(kind.noun));
        expect(text).toBe(routeText(notFoundRoute(id)));
        expect('data' in body).toBe(false);
      },
    );
  });

  describe('authentication', () => {
    test('no Authorization header: 401, a token is required', async () => {
      const response = await anonymous('/api/trees');
      expect(response.status).toBe(401);
      expect(await response.text()).toBe(TOKEN_REQUIRED);
    });

    test('an empty token: 401, a token is required', async () => {
      for (const value of ['', ' ', 'Bearer', 'Bearer   ', 'bearer']) {
        const response = await raw({ target: '/api/trees', headers: [['Authorization', value]] });
        expect({ value, status: response.status, body: response.body.toString() }).toEqual({
          value,
          status: 401,
          body: TOKEN_REQUIRED,
        });
      }
    });

    test('a token that is not configured: 401, the token is not valid', async () => {
      for (const value of ['wrong', 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN.toUpperCase()]) {
        const response = await get('/api/trees', { Authorization: value });
        expect({ value, status: response.status, body: await response.text() }).toEqual({
          value,
          status: 401,
          body: TOKEN_INVALID,
        });
      }
    });

    test('several Authorization headers: 401, the token is not valid, whatever they carry', async () => {
      const valid = `Bearer ${TOKEN}`;
      for (const values of [
        [valid, valid],
        [valid, 'Bearer wrong'],
        ['wrong', valid],
        [TOKEN, TOKEN],
        [valid, ''],
      ]) {
        const response = await raw({ target: '/api/trees', headers: values.map((value) => ['Authorization', value]) });
        expect({ values, status: response.status, body: response.body.toString() }).toEqual({
          values,
          status: 401,
          body: TOKEN_INVALID,
        });
      }
    });

    test('both 401s carry WWW-Authenticate: Bearer', async () => {
      expect((await anonymous('/api/trees')).headers.get('www-authenticate')).toBe('Bearer');
      expect((await get('/api/trees', bearer('wrong'))).headers.get('www-authenticate')).toBe('Bearer');
    });

    test('a bare token is accepted', async () => {
      expect((await get('/api/trees', { Authorization: TOKEN })).status).toBe(200);
    });

    test('the scheme Bearer is accepted in any letter case', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
        expect({ scheme, status: (await get('/api/trees', { Authorization: `${scheme} ${TOKEN}` })).status }).toEqual({
          scheme,
          status: 200,
        });
      }
    });

    test('every comma-separated token of API_TOKENS is accepted', async () => {
      expect((await get('/api/trees', bearer(TOKEN))).status).toBe(200);
      expect((await get('/api/trees', bearer(SECOND_TOKEN))).status).toBe(200);
    });

    test('API_TOKEN_SHA256 digests are accepted', async () => {
      expect((await get('/api/trees', bearer(DIGEST_TOKEN))).status).toBe(200);
    });

    test('a configured digest is not itself a token', async () => {
      expect((await get('/api/trees', bearer(sha256Hex(DIGEST_TOKEN)))).status).toBe(401);
      expect((await get('/api/trees', bearer(sha256Hex(TOKEN)))).status).toBe(401);
    });

    test('two Authorization headers are never read as one valid token: 401', async () => {
      for (const pair of [
        [`Bearer ${TOKEN}`, 'Bearer wrong'],
        ['Bearer wrong', `Bearer ${TOKEN}`],
        [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
        [TOKEN, ''],
      ]) {
        const response = await raw({
          target: '/api/trees',
          headers: pair.map((value): [string, string] => ['Authorization', value]),
        });
        expect({ pair, status: response.status }).toEqual({ pair, status: 401 });
      }
    });

    test('an unknown endpoint without a token tells nothing: 401', async () => {
      for (const path of ['/api/unicorns', '/api/trees/extra', '/api', '/api/']) {
        const response = await anonymous(path);
        expect({ path, status: response.status, body: await response.text() }).toEqual({
          path,
          status: 401,
          body: TOKEN_REQUIRED,
        });
        const invalid = await get(path, bearer('wrong'));
        expect({ path, status: invalid.status, body: await invalid.text() }).toEqual({
          path,
          status: 401,
          body: TOKEN_INVALID,
        });
      }
    });

    test('a bad method without a token tells nothing: 401', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const response = await raw({ method, target: '/api/unicorns' });
        expect({ method, status: response.status, allow: response.headers.allow }).toEqual({
          method,
          status: 401,
          allow: undefined,
        });
        expect(response.body.toString()).toBe(TOKEN_REQUIRED);
      }
    });

    test('an OPTIONS preflight needs no token', async () => {
      expect((await anonymous('/api/trees', { method: 'OPTIONS' })).status).toBe(204);
    });
    // That no token or digest reaches dist/ is test/reliability/secrets.test.ts's rule, on a build
    // made with tokens in its environment (these runtimes' tokens never reach a build).
  });

  describe('other responses under /api/', () => {
    test('an unknown path is 404 Unknown endpoint', async () => {
      for (const path of [
        '/api/unicorns',
        '/api/trees/extra',
        '/api/trees/index.json',
        '/api',
        '/api/',
        '/api//trees',
      ]) {
        const { status, body } = await envelope(path);
        expect({ path, status, body }).toEqual({
          path,
          status: 404,
          body: { error: true, message: UNKNOWN_ENDPOINT_MESSAGE },
        });
      }
    });

    test('a method other than GET, HEAD, OPTIONS is 405 with Allow: GET, HEAD, OPTIONS', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const response = await raw({ method, target: '/api/trees', headers: authorized() });
        expect({ method, status: response.status, allow: response.headers.allow }).toEqual({
          method,
          status: 405,
          allow: 'GET, HEAD, OPTIONS',
        });
        expect(response.body.toString()).toBe('{"error":true,"message":"Method not allowed. Use GET."}');
      }
    });

    test('OPTIONS is 204 with the four CORS headers and no body', async () => {
      const [response] = await exchangeWithNothingExtra([
        {
          method: 'OPTIONS',
          target: '/api/trees',
          headers: [
            ['Origin', 'https://game.example'],
            ['Access-Control-Request-Method', 'GET'],
          ],
        },
      ]);
      expect(response?.status).toBe(204);
      expect(response?.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': 'Authorization, If-None-Match',
        'access-control-max-age': '86400',
      });
    });

    test('a GET with a request body is an ordinary GET', async () => {
      const plain = await raw({ target: '/api/trees?search=Oak%20Tree', headers: authorized() });
      const json: [string, string] = ['Content-Type', 'application/json'];
      const withBodies: RawRequest[] = [
        { target: '/api/trees?search=Oak%20Tree', headers: [...authorized(), json], body: '{"search":"Pine Tree"}' },
        {
          target: '/api/trees?search=Oak%20Tree',
          headers: [...authorized(), json, ['Transfer-Encoding', 'chunked']],
          body: '5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n',
        },
      ];
      for (const request of withBodies) {
        const response = await raw(request);
        expect(response.status).toBe(200);
        expect(response.body.toString()).toBe(plain.body.toString());
      }
    });
  });

  describe('headers on every /api/ response', () => {
    const cases: [string, RawRequest][] = [
      ['a 200', { target: '/api/trees', headers: authorized() }],
      ['a 200 to HEAD', { method: 'HEAD', target: '/api/trees', headers: authorized() }],
      ['a 404 not found', { target: '/api/trees?search=unicorn', headers: authorized() }],
      ['a 404 unknown endpoint', { target: '/api/unicorns', headers: authorized() }],
      ['a 401 without a token', { target: '/api/trees' }],
      ['a 401 with an invalid token', { target: '/api/trees', headers: authorized('wrong') }],
      ['a 405', { method: 'DELETE', target: '/api/trees', headers: authorized() }],
      ['a 204 preflight', { method: 'OPTIONS', target: '/api/trees' }],
    ];
    test.each(cases)(
      '%s carries Access-Control-Allow-Origin, X-Content-Type-Options, X-Data-Version and its Content-Type',
      async (_label, request) => {
        const response = await raw(request);
        expect(response.headers).toMatchObject({
          'access-control-allow-origin': '*',
          'x-content-type-options': 'nosniff',
          'x-data-version': manifest.version,
        });
        expect(response.headers['content-type']).toBe(response.status === 204 ? undefined : JSON_TYPE);
      },
    );

    test('a 304 carries the same headers, without Content-Type', async () => {
      const etag = (await get('/api/trees', { ...bearer(), 'Accept-Encoding': 'identity' })).headers.get('etag') ?? '';
      const response = await raw({ target: '/api/trees', headers: [...authorized(), ['If-None-Match', etag]] });
      expect(response.status).toBe(304);
      expect(response.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
        'x-data-version': manifest.version,
      });
      expect(response.headers['content-type']).toBeUndefined();
    });

    test('X-Data-Version equals the manifest version', async () => {
      expect(manifest.version).toMatch(/^[0-9a-f]{16}$/);
      expect((await get('/api/gifts')).headers.get('x-data-version')).toBe(manifest.version);
    });

    test('a 200 has an ETag and Cache-Control: private, max-age=300', async () => {
      for (const path of ['/api/trees', '/api/trees?search=Oak%20Tree', '/api/gifts?search=1']) {
        const response = await get(path);
        expect({
          path,
          etag: response.headers.get('etag'),
          cacheControl: response.headers.get('cache-control'),
        }).toEqual({
          path,
          etag: expect.stringMatching(/^(W\/)?"[^"]+"$/),
          cacheControl: 'private, max-age=300',
        });
      }
    });

    test('each encoding of a body has its own ETag', async () => {
      const etags = await Promise.all(
        ['identity', 'gzip', 'br'].map(
          async (coding) =>
            (await raw({ target: '/api/trees', headers: [...authorized(), ['Accept-Encoding', coding]] })).headers.etag,
        ),
      );
      expect(new Set(etags).size).toBe(3);
    });

    test('If-None-Match with the ETag gives 304 with no body', async () => {
      for (const coding of ['identity', 'gzip', 'br']) {
        const request: RawRequest = {
          target: '/api/trees?search=Oak%20Tree',
          headers: [...authorized(), ['Accept-Encoding', coding]],
        };
        const etag = (await raw(request)).headers.etag ?? '';
        const [response] = await exchangeWithNothingExtra([
          { ...request, headers: [...(request.headers ?? []), ['If-None-Match', etag]] },
        ]);
        expect({ coding, status: response?.status, etag: response?.headers.etag }).toEqual({
          coding,
          status: 304,
          etag,
        });
      }
    });

    test('If-None-Match naming the ETag among others gives 304', async () => {
      const etag = (await raw({ target: '/api/trees', headers: authorized() })).headers.etag ?? '';
      const response = await raw({
        target: '/api/trees',
        headers: [...authorized(), ['If-None-Match', `"stale", ${etag}`]],
      });
      expect(response.status).toBe(304);
    });

    test("If-None-Match with another body's or another encoding's ETag gives 200", async () => {
      const identityEtag = (await raw({ target: '/api/trees', headers: authorized() })).headers.etag ?? '';
      const otherBody = await raw({
        target: '/api/trees?search=5',
        headers: [...authorized(), ['If-None-Match', identityEtag]],
      });
      expect(otherBody.status).toBe(200);
      const otherEncoding = await raw({
        target: '/api/trees',
        headers: [...authorized(), ['Accept-Encoding', 'br'], ['If-None-Match', identityEtag]],
      });
      expect(otherEncoding.status).toBe(200);
    });

    test('br where the client accepts it, gzip where it accepts only gzip, with Vary: Accept-Encoding', async () => {
      const coded = async (acceptEncoding: string) => {
        const response = await raw({
          target: '/api/trees',
          headers: [...authorized(), ['Accept-Encoding', acceptEncoding]],
        });
        return { acceptEncoding, encoding: response.headers['content-encoding'], vary: response.headers.vary };
      };
      expect(await coded('br')).toEqual({ acceptEncoding: 'br', encoding: 'br', vary: 'Accept-Encoding' });
      expect(await coded('gzip')).toEqual({ acceptEncoding: 'gzip', encoding: 'gzip', vary: 'Accept-Encoding' });
    });

    // The client's order at equal weight is Cloudflare's rule (wrangler's local edge applies it
    // too, TESTING.md), so the edge never re-encodes what the Worker chose: the bytes on the
    // wire are the build's own file of that encoding, with its length.
    test('the highest weight wins, and at equal weight the order the client listed', async () => {
      const pins: [acceptEncoding: string, encoding: string | undefined][] = [
        ['br, gzip', 'br'],
        ['br, deflate, gzip', 'br'],
        ['gzip, deflate, br', 'gzip'],
        ['br;q=0.9, gzip;q=1', 'gzip'],
        ['gzip;q=0.5, br;q=0.6', 'br'],
        ['identity, br', undefined],
      ];
      for (const [acceptEncoding, encoding] of pins) {
        const response = await raw({
          target: '/api/trees',
          headers: [...authorized(), ['Accept-Encoding', acceptEncoding]],
        });
        expect({ acceptEncoding, encoding: response.headers['content-encoding'] }).toEqual({
          acceptEncoding,
          encoding,
        });
        const file = `${listRoute('trees')} (${encoding ?? 'identity'})`;
        const built = routeBytes(listRoute('trees'), encoding === 'br' || encoding === 'gzip' ? encoding : 'identity');
        expect({ acceptEncoding, file, sameBytes: response.body.equals(built) }).toEqual({
          acceptEncoding,
          file,
          sameBytes: true,
        });
        expect(response.headers['content-length']).toBe(String(built.length));
        expect(decodeBody(response.body, response.headers['content-encoding']).toString()).toBe(
          routeText(listRoute('trees')),
        );
      }
    });

    test('identity where the client accepts neither br nor gzip', async () => {
      for (const acceptEncoding of [undefined, 'identity', 'deflate', 'br;q=0, gzip;q=0']) {
        const response = await raw({
          target: '/api/trees',
          headers: [
            ...authorized(),
            ...(acceptEncoding === undefined ? [] : [['Accept-Encoding', acceptEncoding] as [string, string]]),
          ],
        });
        expect({ acceptEncoding, encoding: response.headers['content-encoding'] }).toEqual({
          acceptEncoding,
          encoding: undefined,
        });
        expect(response.body.toString()).toBe(routeText(listRoute('trees')));
      }
    });

    test('br and gzip decode to the identity bytes', async () => {
      const requests: RawRequest[] = [
        { target: '/api/trees', headers: authorized() },
        { target: '/api/gifts?search=1', headers: authorized() },
        { target: '/api/cutters?search=unicorn', headers: authorized() },
        { target: '/api/unicorns', headers: authorized() },
        { target: '/api/trees' },
      ];
      for (const request of requests) {
        const identity = await raw(request);
        const br = await raw({ ...request, headers: [...(request.headers ?? []), ['Accept-Encoding', 'br']] });
        const gzip = await raw({ ...request, headers: [...(request.headers ?? []), ['Accept-Encoding', 'gzip']] });
        expect([br.headers['content-encoding'], gzip.headers['content-encoding']]).toEqual(['br', 'gzip']);
        expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
        expect(gunzipSync(gzip.body).equals(identity.body)).toBe(true);
      }
    });
  });

  describe('data releases', () => {
    const RELEASE_NOT_FOUND =
      '{"error":true,"message":"The requested release could not be found. The releases are listed at /api/releases."}';

    test('GET /api/releases serves the list of releases, byte for byte the build, newest first', async () => {
      const { status, text, body } = await envelope('/api/releases');
      expect(status).toBe(200);
      expect(text).toBe(routeText(RELEASES_ROUTE));
      expect(body.message).toBe('The requested release data was successfully found.');
      expect(body.data?.map((release) => release.id)).toEqual(manifest.releases.map((release) => release.id));
      expect(manifest.releases.length).toBeGreaterThan(0);
    });

    test('release=<id> serves that release list and searches with its X-Data-Version, cached for good', async () => {
      for (const release of manifest.releases) {
        for (const [query, path] of [
          ['', listRoute('trees')],
          ['&search=1', levelRoute('trees', 1)],
          ['&search=breadknife', nameRoute('cutters', 'breadknife')],
        ] as const) {
          const kind = path.split('/')[0];
          const response = await get(`/api/${kind}?release=${release.id}${query}`);
          expect({ query, status: response.status, text: await response.text() }).toEqual({
            query,
            status: 200,
            text: routeText(path, release.id),
          });
          expect(response.headers.get('x-data-version')).toBe(release.version);
          expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
        }
      }
    });

    test('only the first release parameter counts, and an empty one is the current data', async () => {
      const [newest] = manifest.releases;
      const first = await get(`/api/trees?release=${newest?.id}&release=unknown`);
      expect(first.headers.get('x-data-version')).toBe(newest?.version);
      const empty = await get('/api/trees?release=');
      expect({ status: empty.status, cache: empty.headers.get('cache-control') }).toEqual({
        status: 200,
        cache: 'private, max-age=300',
      });
    });

    test('an unknown release is 404 with the contract body, and a release folder is no endpoint', async () => {
      const unknown = await envelope('/api/trees?release=1999-12-31&search=Oak%20Tree');
      expect({ status: unknown.status, text: unknown.text }).toEqual({ status: 404, text: RELEASE_NOT_FOUND });
      const folder = await envelope(`/api/releases/${manifest.releases[0]?.id}/trees`);
      expect({ status: folder.status, message: folder.body.message }).toEqual({
        status: 404,
        message: UNKNOWN_ENDPOINT_MESSAGE,
      });
    });
  });

  describe('everything outside /api/', () => {
    test('the whole wiki outside /api/ is public: every file is served without a token', async () => {
      const paths = wikiPaths();
      expect(paths).toContain('/index.html');
      const failures: string[] = [];
      // A few at a time: enough to be quick, few enough not to swamp a 2-core machine.
      for (let start = 0; start < paths.length; start += 8) {
        await Promise.all(
          paths.slice(start, start + 8).map(async (path) => {
            const response = await anonymous(path);
            await response.arrayBuffer();
            if (response.status !== 200) failures.push(`${path}: ${response.status}`);
          }),
        );
      }
      expect(failures).toEqual([]);
    });

    test("the static assets' configuration (_headers, .assetsignore) is not served", async () => {
      const statuses = await Promise.all(ASSETS_CONFIG_FILES.map(async (file) => (await anonymous(`/${file}`)).status));
      expect(statuses).toEqual([404, 404]);
    });

    test('GET and HEAD only: any other method gets 405 with Allow: GET, HEAD', async () => {
      // In the R2 mode the Worker does not run for the wiki: Cloudflare's asset server answers
      // the 405 itself, and it sends no Allow (docs/deploy.md).
      const allow = runtimeName === 'worker-r2' ? undefined : 'GET, HEAD';
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
        const response = await raw({ method, target: '/index.html', body: '' });
        expect({ method, status: response.status, allow: response.headers.allow }).toEqual({
          method,
          status: 405,
          allow,
        });
      }
      expect((await raw({ method: 'HEAD', target: '/' })).status).toBe(200);
    });

    test('the home page is the wiki, without a token', async () => {
      const response = await anonymous('/');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    });
  });
});

test('a local server with no token configured makes one up and prints a curl line that works', async () => {
  const { API_TOKENS: _tokens, API_TOKEN_SHA256: _digests, ...environment } = process.env;
  const child = spawn(process.execPath, ['src/server/serve.ts'], {
    cwd: projectDir,
    env: { ...environment, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const curl = await new Promise<RegExpExecArray>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /curl -H "Authorization: Bearer ([^"]+)" "([^"]+)"/.exec(output);
        if (match) resolve(match);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) =>
        reject(new Error(`serve exited with ${code} before printing a curl line:\n${output}`)),
      );
    });
    const [, token = '', url = ''] = curl;
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: '' } })).status).toBe(401);
    const answered = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as Envelope).data).toEqual([treeNamed('Oak Tree')]);
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
});
