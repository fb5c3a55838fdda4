// The edge core's decisions (src/edge/core.ts) for one request of each kind, against the
// contract's words written out here (docs/api-contract.md): status, every header, the body.
// The same rules as test/edge/contract.test.ts, in-process and fast, so that a mutation run
// (npm run test:mutation) can use them.
import { mcpMount } from '../../src/apps/mcp/mount.ts';
import { mountAt } from '../../src/edge/apps.ts';
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { FIXED_BODIES } from '../../src/contract/messages.ts';
import { fixedRoute } from '../../src/contract/paths.ts';
import type { RouteIndex } from '../../src/contract/resolve.ts';
import { createEdge, type EdgeDecision } from '../../src/edge/core.ts';
import { reachesApiFolder } from '../../src/edge/static-guard.ts';
import { tokenDigests } from '../../src/edge/tokens.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { routeBody } from '../support/dist-routes.ts';
import { distDir } from '../support/runtimes.ts';

const TOKEN = 'core-unit-token';
const store = await loadBodyStore(distDir);
const manifest = store.manifest;
const digests = await tokenDigests({ API_TOKENS: TOKEN });
const newCore = (index: RouteIndex = store.index) => createEdge({ index, tokenDigests: digests });
const decide = newCore();

/** The stored body of a route of the current data, or of a release's with `release`. */
function stored(route: string, release?: string): string {
  const body = routeBody(route, release);
  if (body === undefined) throw new Error(`${route} is not a route of the build`);
  return body;
}

/** The decision for a request, its headers given by name in any case. */
function decision(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  core = decide,
): Promise<EdgeDecision> {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const url = new URL(target, 'http://localhost');
  return core({
    method,
    pathname: url.pathname,
    query: url.search.slice(1),
    header: (name) => byName.get(name) ?? null,
    mount: mountAt(url.pathname, [mcpMount]),
  });
}
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const authorized = (extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${TOKEN}`, ...extra });

const common = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, X-Data-Version',
  'X-Content-Type-Options': 'nosniff',
  'X-Data-Version': manifest.version,
};
const json = { 'Content-Type': 'application/json; charset=utf-8', Vary: 'Accept-Encoding' };
const errorText = (message: string) => `{"error":true,"message":"${message}"}`;
/** The stored body of the edge's fixed body with exactly this text. */
const fixedFile = (text: string) => {
  const fixed = FIXED_BODIES.find((candidate) => candidate.body === text);
  return fixed ? stored(fixedRoute(fixed.name)) : `no fixed body is ${text}`;
};
const etagOf = (route: string, suffix = '', release?: string) => `"${stored(route, release).slice(0, 32)}${suffix}"`;

describe('answers to /api/', () => {
  test('a GET of a list: 200, the list file, ETag and Cache-Control: private, max-age=300', async () => {
    expect(await decision('GET', '/api/trees', authorized())).toEqual({
      type: 'respond',
      status: 200,
      headers: {
        ...common,
        ...json,
        'Cache-Control': 'private, max-age=300',
        ETag: etagOf('trees/list'),
      },
      body: { stored: stored('trees/list') },
      encoding: 'identity',
      omitBody: false,
    });
  });

  test('br where accepted: Content-Encoding br and the ETag of that encoding', async () => {
    expect(await decision('GET', '/api/cutters?search=Knife', authorized({ 'Accept-Encoding': 'br' }))).toMatchObject({
      status: 200,
      headers: { 'Content-Encoding': 'br', ETag: etagOf('cutters/name/knife', '-br') },
      body: { stored: stored('cutters/name/knife') },
      encoding: 'br',
    });
  });

  test('HEAD: the decision of GET, without the body', async () => {
    const get = await decision('GET', '/api/gifts?search=1', authorized());
    expect(await decision('HEAD', '/api/gifts?search=1', authorized())).toEqual({ ...get, omitBody: true });
    expect(get).toMatchObject({ status: 200, body: { stored: stored('gifts/level/1') } });
  });

  test('If-None-Match naming the ETag: 304, no body, no Content-Type or Content-Encoding', async () => {
    const etag = etagOf('trees/level/5', '-gzip');
    expect(
      await decision('GET', '/api/trees/?search=05', authorized({ 'Accept-Encoding': 'gzip', 'If-None-Match': etag })),
    ).toEqual({
      type: 'respond',
      status: 304,
      headers: { ...common, Vary: 'Accept-Encoding', 'Cache-Control': 'private, max-age=300', ETag: etag },
      encoding: 'identity',
      omitBody: true,
    });
  });

  test('a search that finds nothing: 404 with the kind not-found file, no-store', async () => {
    expect(await decision('GET', '/api/plots?search=Oak', authorized())).toEqual({
      type: 'respond',
      status: 404,
      headers: { ...common, ...json, 'Cache-Control': 'no-store' },
      body: { stored: stored('plots/not-found') },
      encoding: 'identity',
      omitBody: false,
    });
    expect(await decision('GET', `/api/trees?search=${'a'.repeat(101)}`, authorized())).toMatchObject({
      status: 404,
      body: { stored: stored('trees/not-found') },
    });
  });

  test('no token: 401 "An API token is required", WWW-Authenticate: Bearer, no-store', async () => {
    const anonymous: Record<string, string>[] = [{}, { Authorization: '' }, { Authorization: 'Bearer ' }];
    for (const headers of anonymous) {
      expect(await decision('GET', '/api/trees', headers)).toEqual({
        type: 'respond',
        status: 401,
        headers: { ...common, ...json, 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
        body: { stored: fixedFile(errorText('An API token is required. Send it in the Authorization header.')) },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('a token that is not configured: 401 "The provided API token is not valid."', async () => {
    expect(await decision('DELETE', '/api/unicorns', { Authorization: 'Bearer wrong' })).toMatchObject({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
      body: { stored: fixedFile(errorText('The provided API token is not valid.')) },
    });
  });

  const SEVERAL_AUTHORIZATIONS =
    'several Authorization headers (joined by ", "): 401 the token is not valid, whatever they carry';
  test(SEVERAL_AUTHORIZATIONS, async () => {
    // A token whose digest is configured, with a comma in it: only several headers can present that.
    const withComma = `${TOKEN}, ${TOKEN}`;
    const core = createEdge({
      index: store.index,
      tokenDigests: await tokenDigests({ API_TOKENS: TOKEN, API_TOKEN_SHA256: sha256Hex(withComma) }),
    });
    for (const authorization of [
      `Bearer ${TOKEN}, Bearer ${TOKEN}`,
      withComma,
      `Bearer ${withComma}`,
      `Bearer ${TOKEN}, `,
    ]) {
      expect({
        authorization,
        decision: await decision('GET', '/api/trees', { Authorization: authorization }, core),
      }).toMatchObject({
        authorization,
        decision: { status: 401, body: { stored: fixedFile(errorText('The provided API token is not valid.')) } },
      });
    }
  });

  test('an unknown endpoint: 404 naming the six endpoints', async () => {
    for (const target of ['/api', '/api/', '/api/unicorns', '/api/trees/oak', '/api/Trees', '/api/x/api/trees']) {
      expect(await decision('GET', target, authorized())).toEqual({
        type: 'respond',
        status: 404,
        headers: { ...common, ...json, 'Cache-Control': 'no-store' },
        body: {
          stored: fixedFile(
            errorText(
              'Unknown endpoint. The endpoints are /api/trees, /api/cutters, /api/gifts, /api/plots, ' +
                '/api/storages, /api/vehicles and /api/releases.',
            ),
          ),
        },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('another method: 405 "Method not allowed. Use GET." with Allow: GET, HEAD, OPTIONS', async () => {
    for (const method of ['POST', 'put', 'DELETE', 'PATCH']) {
      expect(await decision(method, '/api/trees', authorized())).toEqual({
        type: 'respond',
        status: 405,
        headers: { ...common, ...json, Allow: 'GET, HEAD, OPTIONS', 'Cache-Control': 'no-store' },
        body: { stored: fixedFile(errorText('Method not allowed. Use GET.')) },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('OPTIONS, with or without a token: 204 with the CORS preflight headers and no body', async () => {
    for (const headers of [{}, authorized()]) {
      expect(await decision('OPTIONS', '/api/anything', headers)).toEqual({
        type: 'respond',
        status: 204,
        headers: {
          ...common,
          'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
          'Access-Control-Allow-Headers': 'Authorization, If-None-Match',
          'Access-Control-Max-Age': '86400',
        },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('OPTIONS /mcp, with or without a token: 204 allowing POST and the headers an MCP client sends', async () => {
    for (const headers of [{}, authorized()]) {
      expect(await decision('OPTIONS', '/mcp', headers)).toEqual({
        type: 'respond',
        status: 204,
        headers: {
          ...common,
          'Access-Control-Allow-Methods': 'POST, OPTIONS',
          'Access-Control-Allow-Headers':
            'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name',
          'Access-Control-Max-Age': '86400',
        },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('the preflights of /mcp and /api/ are each their own, whichever a core answers first', async () => {
    const core = newCore();
    const allowedMethods = async (path: string) => {
      const answer = await decision('OPTIONS', path, {}, core);
      return answer.type === 'respond' ? answer.headers['Access-Control-Allow-Methods'] : answer.type;
    };
    const paths = ['/mcp', '/api/trees', '/mcp', '/api/trees'];
    const answered = [];
    for (const path of paths) answered.push(await allowedMethods(path));
    expect(answered).toEqual(['POST, OPTIONS', 'GET, HEAD, OPTIONS', 'POST, OPTIONS', 'GET, HEAD, OPTIONS']);
  });
});

/** The index over dist/, counting the bodies it reads (near-miss shards). */
function countingIndex(): RouteIndex & { textsRead: number } {
  const counting = {
    ...store.index,
    textsRead: 0,
    text(body: string) {
      counting.textsRead++;
      return store.index.text(body);
    },
  };
  return counting;
}

describe('suggestions (/api/{kind}/suggest)', () => {
  const giantSequoia =
    '{"error":false,"message":"Suggestions for the requested tree.","data":[{"name":"Giant Sequoia","level":51}]}';
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  test('a prefix: 200 with its prebuilt answer file, ETag and Cache-Control as for a search', async () => {
    expect(await decision('GET', '/api/trees/suggest?search=Oak', authorized())).toEqual({
      type: 'respond',
      status: 200,
      headers: {
        ...common,
        ...json,
        'Cache-Control': 'private, max-age=300',
        ETag: etagOf('trees/suggest/key/oak'),
      },
      body: { stored: stored('trees/suggest/key/oak') },
      encoding: 'identity',
      omitBody: false,
    });
  });

  test('no search: the first 25; digits: the level prefix; a short key nothing starts with: []', async () => {
    const file = async (target: string) => {
      const made = await decision('GET', target, authorized());
      return made.type === 'respond' ? made.body : made.type;
    };
    expect(await file('/api/trees/suggest')).toEqual({ stored: stored('trees/suggest/first') });
    expect(await file('/api/trees/suggest/?search=6')).toEqual({ stored: stored('trees/suggest/level/6') });
    expect(await file('/api/trees/suggest?search=oax')).toEqual({ stored: stored('trees/suggest/none') });
    expect(await file('/api/plots/suggest?search=oak')).toEqual({ stored: stored('plots/suggest/none') });
    expect(await file('/api/trees/suggest?search=!!')).toEqual({ stored: stored('trees/suggest/none') });
  });

  test('a near miss: an answer made from the near-miss shards it reads, its ETag its sha256', async () => {
    const index = countingIndex();
    const edge = newCore(index);
    const request = { method: 'GET', pathname: '/api/trees/suggest', query: 'search=sequioa', mount: undefined };
    const ask = (headers: Record<string, string>) =>
      edge({ ...request, header: (name) => new Map(Object.entries(headers)).get(name) ?? null });
    const answer = await ask({ authorization: `Bearer ${TOKEN}` });
    expect(index.textsRead).toBeGreaterThan(0);
    const etag = `"${sha256(giantSequoia).slice(0, 32)}"`;
    expect(answer).toEqual({
      type: 'respond',
      status: 200,
      headers: { ...common, ...json, 'Cache-Control': 'private, max-age=300', ETag: etag },
      body: { text: giantSequoia },
      encoding: 'identity',
      omitBody: false,
    });
    // Asked again, the answer is remembered: no shard read again, the same answer.
    const read = index.textsRead;
    expect(await ask({ authorization: `Bearer ${TOKEN}` })).toBe(answer);
    expect(index.textsRead).toBe(read);
    expect(await ask({ authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' })).toMatchObject({
      headers: { 'Content-Encoding': 'gzip', ETag: `"${sha256(giantSequoia).slice(0, 32)}-gzip"` },
      body: { text: giantSequoia },
      encoding: 'gzip',
    });
    expect(await ask({ authorization: `Bearer ${TOKEN}`, 'if-none-match': etag })).toMatchObject({
      status: 304,
      omitBody: true,
    });
  });

  test('another typo over the same shards makes the same answer', async () => {
    const ask = (query: string) =>
      decide({
        method: 'GET',
        pathname: '/api/trees/suggest',
        query,
        header: (name) => (name === 'authorization' ? `Bearer ${TOKEN}` : null),
        mount: undefined,
      });
    await ask('search=sequioa');
    expect(await ask('search=sequoai')).toMatchObject({ type: 'respond', status: 200, body: { text: giantSequoia } });
  });

  test('release=<id> pins a suggestion to the release, unknown releases are 404', async () => {
    const [release] = manifest.releases;
    expect(await decision('GET', `/api/trees/suggest?search=oak&release=${release?.id}`, authorized())).toMatchObject({
      status: 200,
      headers: { 'Cache-Control': 'private, max-age=31536000, immutable', 'X-Data-Version': release?.version },
      body: { stored: stored(`trees/suggest/key/oak`, release?.id) },
    });
    expect(await decision('GET', '/api/trees/suggest?search=oak&release=1999-01-01', authorized())).toMatchObject({
      status: 404,
      body: { stored: stored(fixedRoute('release-not-found')) },
    });
  });

  test('/api/releases/suggest and a path below suggest are unknown endpoints', async () => {
    for (const target of ['/api/releases/suggest', '/api/trees/suggest/oak', '/api/suggest'])
      expect({ target, decision: await decision('GET', target, authorized()) }).toMatchObject({
        target,
        decision: { status: 404, body: { stored: stored(fixedRoute('unknown-endpoint')) } },
      });
  });
});

describe('releases and methods (mutation survivors)', () => {
  const [release] = manifest.releases;
  const releaseId = release?.id ?? 'no release in dist/';

  test('GET /api/releases: 200 with the list of releases, cached as a found answer', async () => {
    expect(await decision('GET', '/api/releases', authorized())).toMatchObject({
      status: 200,
      headers: { 'Cache-Control': 'private, max-age=300', ETag: etagOf('releases') },
      body: { stored: stored('releases') },
    });
  });

  test('release=<id>: that release, its data version, cached for good; its not-found uncached', async () => {
    expect(await decision('GET', `/api/trees?release=${releaseId}`, authorized())).toMatchObject({
      status: 200,
      headers: { 'X-Data-Version': release?.version, 'Cache-Control': 'private, max-age=31536000, immutable' },
      body: { stored: stored(`trees/list`, releaseId) },
    });
    expect(await decision('GET', `/api/trees?release=${releaseId}&search=nothing-like-it`, authorized())).toMatchObject(
      {
        status: 404,
        headers: { 'X-Data-Version': release?.version, 'Cache-Control': 'no-store' },
        body: { stored: stored(`trees/not-found`, releaseId) },
      },
    );
    // A search no file can answer (over 100 characters) is that release's not-found too.
    expect(
      await decision('GET', `/api/trees?release=${releaseId}&search=${'a'.repeat(101)}`, authorized()),
    ).toMatchObject({
      status: 404,
      headers: { 'X-Data-Version': release?.version, 'Cache-Control': 'no-store' },
      body: { stored: stored(`trees/not-found`, releaseId) },
    });
  });

  test('a method in lower case is that method: head is a HEAD, without the body', async () => {
    const get = await decision('GET', '/api/trees', authorized());
    expect(await decision('head', '/api/trees', authorized())).toEqual({ ...get, omitBody: true });
  });

  test('the 304 of each encoding carries the ETag of that encoding', async () => {
    const notModified = (coding: string, suffix: string) =>
      decision(
        'GET',
        '/api/cutters',
        authorized({ 'Accept-Encoding': coding, 'If-None-Match': etagOf('cutters/list', suffix) }),
      );
    const br = await notModified('br', '-br');
    const gzip = await notModified('gzip', '-gzip');
    expect([br, gzip].map((answer) => answer.type === 'respond' && [answer.status, answer.headers['ETag']])).toEqual([
      [304, etagOf('cutters/list', '-br')],
      [304, etagOf('cutters/list', '-gzip')],
    ]);
  });
});

describe('remembered answers (mutation survivors)', () => {
  /** The answers on one core to each request in turn, beside the answer of a new core to it alone. */
  const onOneCoreAndNew = async (
    requests: readonly [method: string, target: string, headers: Record<string, string>][],
  ) => {
    const shared = newCore();
    const asked = [];
    for (const [method, target, headers] of requests)
      asked.push({
        request: [method, target, headers],
        remembered: await decision(method, target, headers, shared),
        fresh: await decision(method, target, headers, newCore()),
      });
    return asked;
  };
  /** Each remembered answer is the new core's, shown with its request when it is not. */
  const expectAlike = (asked: Awaited<ReturnType<typeof onOneCoreAndNew>>) => {
    for (const { request, remembered, fresh } of asked)
      expect({ request, answer: remembered }).toEqual({ request, answer: fresh });
  };
  const [release] = manifest.releases;

  test('each method, encoding and If-None-Match of one file has an answer of its own, asked in any order', async () => {
    const file = 'vehicles/list';
    const requests: [string, string, Record<string, string>][] = [];
    for (const method of ['GET', 'HEAD'])
      for (const [coding, suffix] of [
        ['identity', ''],
        ['br', '-br'],
        ['gzip', '-gzip'],
      ]) {
        const conditionals: Record<string, string>[] = [{}, { 'If-None-Match': etagOf(file, suffix) }];
        for (const conditional of conditionals)
          requests.push([method, '/api/vehicles', authorized({ 'Accept-Encoding': `${coding}`, ...conditional })]);
      }
    for (const order of [requests, requests.toReversed()]) expectAlike(await onOneCoreAndNew(order));
  });

  test('a near miss of a release and the same near miss of the current data are answered apart', async () => {
    const asked = await onOneCoreAndNew([
      ['GET', '/api/trees/suggest?search=sequioa', authorized()],
      ['GET', `/api/trees/suggest?search=sequioa&release=${release?.id}`, authorized()],
    ]);
    expectAlike(asked);
    expect(asked[1]?.remembered).toMatchObject({
      headers: { 'Cache-Control': 'private, max-age=31536000, immutable', 'X-Data-Version': release?.version },
    });
  });

  test('the same near miss pinned to two releases is answered by each release', async () => {
    // A second release beside the build's: its files are the first one's, its data version its own.
    const [first = 'no release in dist/', second] = [release?.id, '2999-01-01'];
    // The build's index, with the second release's root and shards those of the first.
    const index: RouteIndex = {
      ...store.index,
      root: async (id) => {
        const root = await store.index.root(id === second ? first : id);
        return id === second && root ? { ...root, version: 'second-version' } : root;
      },
      shard: (id, n) => store.index.shard(id === second ? first : id, n),
    };
    const core = newCore(index);
    const versions = [];
    for (const id of [first, second]) {
      const answer = await decision('GET', `/api/trees/suggest?search=sequioa&release=${id}`, authorized(), core);
      versions.push(answer.type === 'respond' && answer.headers['X-Data-Version']);
    }
    expect(versions).toEqual([release?.version, 'second-version']);
  });

  test('near misses of two kinds on one core each get their own body', async () => {
    const asked = await onOneCoreAndNew([
      ['GET', '/api/trees/suggest?search=sequioa', authorized()],
      ['GET', '/api/cutters/suggest?search=knfie', authorized()],
    ]);
    expectAlike(asked);
    expect(asked.map(({ remembered }) => remembered.type === 'respond' && remembered.body)).toEqual([
      { text: expect.stringContaining('"Giant Sequoia"') },
      { text: expect.stringContaining('"Knife"') },
    ]);
  });

  test('a preflight has no body, so no encoding, whatever Accept-Encoding asks', async () => {
    expect(await decision('OPTIONS', '/api/trees', { 'Accept-Encoding': 'br' })).toMatchObject({
      status: 204,
      encoding: 'identity',
    });
  });
});

describe('/mcp', () => {
  test("with a valid token, any method is handed to the MCP server with the API's headers, never cached", async () => {
    for (const method of ['POST', 'GET', 'DELETE'])
      expect({ method, decision: await decision(method, '/mcp', authorized()) }).toEqual({
        method,
        decision: { type: 'app', app: 'mcp', headers: { ...common, 'Cache-Control': 'no-store' } },
      });
  });

  test("without a valid token: the API's 401, with WWW-Authenticate", async () => {
    for (const headers of [{}, { Authorization: 'Bearer not-the-token' }] as Record<string, string>[])
      expect(await decision('POST', '/mcp', headers)).toMatchObject({
        type: 'respond',
        status: 401,
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
  });

  test('only /mcp itself: /mcp/ and /mcp/x are static paths', async () => {
    expect(await decision('GET', '/mcp/', authorized())).toEqual({ type: 'static' });
    expect(await decision('POST', '/mcp/x', authorized())).toMatchObject({ type: 'respond', status: 405 });
  });
});

describe('paths outside /api/', () => {
  test('the site is static', async () => {
    for (const target of ['/', '/trees/oak-tree/', '/apiary', '/docs/api/', '/api.html'])
      expect({ target, decision: await decision('GET', target) }).toEqual({ target, decision: { type: 'static' } });
  });

  test('another method than GET or HEAD: 405 "Method not allowed. Use GET." with Allow: GET, HEAD', async () => {
    for (const method of ['POST', 'put', 'DELETE', 'TRACE', 'OPTIONS', 'PROPFIND']) {
      expect({ method, decision: await decision(method, '/trees/oak-tree/') }).toEqual({
        method,
        decision: {
          type: 'respond',
          status: 405,
          headers: { ...common, ...json, Allow: 'GET, HEAD', 'Cache-Control': 'no-store' },
          body: { stored: fixedFile(errorText('Method not allowed. Use GET.')) },
          encoding: 'identity',
          omitBody: false,
        },
      });
    }
    // Remembered apart from the API's 405, whose Allow differs, in either order.
    expect(await decision('POST', '/api/trees', authorized())).toMatchObject({
      headers: { Allow: 'GET, HEAD, OPTIONS' },
    });
    expect(await decision('POST', '/')).toMatchObject({ headers: { Allow: 'GET, HEAD' } });
    expect(await decision('head', '/')).toEqual({ type: 'static' });
  });

  test('a path that a file server would take into the API folder: 404 "Not found."', async () => {
    expect(await decision('GET', '/%2Fapi/trees/index.json', authorized())).toEqual({
      type: 'respond',
      status: 404,
      headers: { ...common, ...json },
      body: { stored: fixedFile(errorText('Not found.')) },
      encoding: 'identity',
      omitBody: false,
    });
  });

  test('reachesApiFolder decodes up to four times, resolves . and .., \\ and letter case', async () => {
    const cases: [path: string, reaches: boolean][] = [
      ['/api%2ftrees', true],
      ['/a/%2e%2e/api/x', true],
      ['/./api', true],
      ['/x/../API/', true],
      ['/%5Capi%5Cx', true],
      ['/api%2525252ftrees', true], // decoded four times
      ['/%25252561pi/trees', true], // the a of api encoded four times
      ['/%2525252561pi/trees', false], // five times: past the four rounds, left to the file server (no such file)
      ['/%E0%A4%A/api', false], // malformed: left as it is, its first segment is not api
      ['/API/%E0%A4%A', true], // malformed: left as it is, its first segment is api
      ['/apix/trees', false],
      ['/x/api', false],
      ['/', false],
    ];
    for (const [path, reaches] of cases) expect({ path, reaches: reachesApiFolder(path) }).toEqual({ path, reaches });
  });
});
