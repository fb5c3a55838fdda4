// The edge core's decisions (src/edge/core.ts) for one request of each kind, against the
// contract's words written out here (docs/api-contract.md): status, every header, the body.
// The same rules as test/edge/contract.test.ts, in-process and fast, so that a mutation run
// (npm run test:mutation) can use them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXED_BODIES } from '../../src/contract/messages.ts';
import { fixedBodyPath } from '../../src/contract/paths.ts';
import { createEdge, reachesApiFolder, type EdgeDecision } from '../../src/edge/core.ts';
import { tokenDigests } from '../../src/edge/tokens.ts';
import { readManifest } from '../../src/server/body-store.ts';
import { distDir } from '../support/runtimes.ts';

const TOKEN = 'core-unit-token';
const manifest = await readManifest(distDir);
const newCore = () => createEdge({ manifest, tokenDigests: tokenDigests({ API_TOKENS: TOKEN }) });
const decide = newCore();

/** The decision for a request, its headers given by name in any case. */
function decision(method: string, target: string, headers: Record<string, string> = {}, core = decide): EdgeDecision {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const url = new URL(target, 'http://localhost');
  return core({
    method,
    pathname: url.pathname,
    query: url.search.slice(1),
    header: (name) => byName.get(name) ?? null,
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
/** The build's file of the edge's fixed body with exactly this text. */
const fixedFile = (text: string) => {
  const fixed = FIXED_BODIES.find((candidate) => candidate.body === text);
  return fixed ? fixedBodyPath(fixed.name) : `no fixed body is ${text}`;
};
const etagOf = (path: string, suffix = '') => `"${manifest.files[path]?.sha256.slice(0, 32)}${suffix}"`;

describe('answers to /api/', () => {
  test('a GET of a list: 200, the list file, ETag and Cache-Control: private, max-age=300', () => {
    expect(decision('GET', '/api/trees', authorized())).toEqual({
      type: 'respond',
      status: 200,
      headers: {
        ...common,
        ...json,
        'Cache-Control': 'private, max-age=300',
        ETag: etagOf('api/trees/index.json'),
      },
      body: { file: 'api/trees/index.json' },
      encoding: 'identity',
      omitBody: false,
    });
  });

  test('br where accepted: Content-Encoding br and the ETag of that encoding', () => {
    expect(decision('GET', '/api/cutters?search=Knife', authorized({ 'Accept-Encoding': 'br' }))).toMatchObject({
      status: 200,
      headers: { 'Content-Encoding': 'br', ETag: etagOf('api/cutters/name/knife.json', '-br') },
      body: { file: 'api/cutters/name/knife.json' },
      encoding: 'br',
    });
  });

  test('HEAD: the decision of GET, without the body', () => {
    const get = decision('GET', '/api/gifts?search=1', authorized());
    expect(decision('HEAD', '/api/gifts?search=1', authorized())).toEqual({ ...get, omitBody: true });
    expect(get).toMatchObject({ status: 200, body: { file: 'api/gifts/level/1.json' } });
  });

  test('If-None-Match naming the ETag: 304, no body, no Content-Type or Content-Encoding', () => {
    const etag = etagOf('api/trees/level/5.json', '-gzip');
    expect(
      decision('GET', '/api/trees/?search=05', authorized({ 'Accept-Encoding': 'gzip', 'If-None-Match': etag })),
    ).toEqual({
      type: 'respond',
      status: 304,
      headers: { ...common, Vary: 'Accept-Encoding', 'Cache-Control': 'private, max-age=300', ETag: etag },
      encoding: 'identity',
      omitBody: true,
    });
  });

  test('a search that finds nothing: 404 with the kind not-found file, no-store', () => {
    expect(decision('GET', '/api/plots?search=Oak', authorized())).toEqual({
      type: 'respond',
      status: 404,
      headers: { ...common, ...json, 'Cache-Control': 'no-store' },
      body: { file: 'api/plots/not-found.json' },
      encoding: 'identity',
      omitBody: false,
    });
    expect(decision('GET', `/api/trees?search=${'a'.repeat(101)}`, authorized())).toMatchObject({
      status: 404,
      body: { file: 'api/trees/not-found.json' },
    });
  });

  test('no token: 401 "An API token is required", WWW-Authenticate: Bearer, no-store', () => {
    const anonymous: Record<string, string>[] = [{}, { Authorization: '' }, { Authorization: 'Bearer ' }];
    for (const headers of anonymous) {
      expect(decision('GET', '/api/trees', headers)).toEqual({
        type: 'respond',
        status: 401,
        headers: { ...common, ...json, 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
        body: { file: fixedFile(errorText('An API token is required. Send it in the Authorization header.')) },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('a token that is not configured: 401 "The provided API token is not valid."', () => {
    expect(decision('DELETE', '/api/unicorns', { Authorization: 'Bearer wrong' })).toMatchObject({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
      body: { file: fixedFile(errorText('The provided API token is not valid.')) },
    });
  });

  const SEVERAL_AUTHORIZATIONS =
    'several Authorization headers (joined by ", "): 401 the token is not valid, whatever they carry';
  test(SEVERAL_AUTHORIZATIONS, () => {
    // A token whose digest is configured, with a comma in it: only several headers can present that.
    const withComma = `${TOKEN}, ${TOKEN}`;
    const core = createEdge({
      manifest,
      tokenDigests: tokenDigests({ API_TOKENS: TOKEN, API_TOKEN_SHA256: sha256Hex(withComma) }),
    });
    for (const authorization of [
      `Bearer ${TOKEN}, Bearer ${TOKEN}`,
      withComma,
      `Bearer ${withComma}`,
      `Bearer ${TOKEN}, `,
    ]) {
      expect({
        authorization,
        decision: decision('GET', '/api/trees', { Authorization: authorization }, core),
      }).toMatchObject({
        authorization,
        decision: { status: 401, body: { file: fixedFile(errorText('The provided API token is not valid.')) } },
      });
    }
  });

  test('an unknown endpoint: 404 naming the six endpoints', () => {
    for (const target of ['/api', '/api/', '/api/unicorns', '/api/trees/oak', '/api/Trees', '/api/x/api/trees']) {
      expect(decision('GET', target, authorized())).toEqual({
        type: 'respond',
        status: 404,
        headers: { ...common, ...json, 'Cache-Control': 'no-store' },
        body: {
          file: fixedFile(
            errorText(
              'Unknown endpoint. The endpoints are /api/trees, /api/cutters, /api/gifts, /api/plots, ' +
                '/api/storages and /api/vehicles.',
            ),
          ),
        },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('another method: 405 "Method not allowed. Use GET." with Allow: GET, HEAD, OPTIONS', () => {
    for (const method of ['POST', 'put', 'DELETE', 'PATCH']) {
      expect(decision(method, '/api/trees', authorized())).toEqual({
        type: 'respond',
        status: 405,
        headers: { ...common, ...json, Allow: 'GET, HEAD, OPTIONS', 'Cache-Control': 'no-store' },
        body: { file: fixedFile(errorText('Method not allowed. Use GET.')) },
        encoding: 'identity',
        omitBody: false,
      });
    }
  });

  test('OPTIONS, with or without a token: 204 with the CORS preflight headers and no body', () => {
    for (const headers of [{}, authorized()]) {
      expect(decision('OPTIONS', '/api/anything', headers)).toEqual({
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
});

/** Each index file a lookup names, read from dist/ as an adapter reads it. */
const read = (files: readonly string[]) => files.map((file) => readFileSync(join(distDir, file), 'utf8'));
/** The answer to a decision, a lookup answered from dist/ as an adapter does. */
const answered = (made: EdgeDecision) => (made.type === 'lookup' ? made.answer(read(made.files)) : made);

describe('suggestions (/api/{kind}/suggest)', () => {
  const giantSequoia =
    '{"error":false,"message":"Suggestions for the requested tree.","data":[{"name":"Giant Sequoia","level":51}]}';
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  test('a prefix: 200 with its prebuilt answer file, ETag and Cache-Control as for a search', () => {
    expect(decision('GET', '/api/trees/suggest?search=Oak', authorized())).toEqual({
      type: 'respond',
      status: 200,
      headers: {
        ...common,
        ...json,
        'Cache-Control': 'private, max-age=300',
        ETag: etagOf('api/trees/suggest/key/oak.json'),
      },
      body: { file: 'api/trees/suggest/key/oak.json' },
      encoding: 'identity',
      omitBody: false,
    });
  });

  test('no search: the first 25; digits: the level prefix; a key under 4 characters nothing starts with: []', () => {
    const file = (target: string) => {
      const made = decision('GET', target, authorized());
      return made.type === 'respond' ? made.body : made.type;
    };
    expect(file('/api/trees/suggest')).toEqual({ file: 'api/trees/suggest/index.json' });
    expect(file('/api/trees/suggest/?search=6')).toEqual({ file: 'api/trees/suggest/level/6.json' });
    expect(file('/api/trees/suggest?search=oax')).toEqual({ file: 'api/trees/suggest/none.json' });
    expect(file('/api/plots/suggest?search=oak')).toEqual({ file: 'api/plots/suggest/none.json' });
    expect(file('/api/trees/suggest?search=!!')).toEqual({ file: 'api/trees/suggest/none.json' });
  });

  test('a near miss: a lookup of index files, then an answer made from their texts, its ETag its sha256', () => {
    const edge = createEdge({ manifest, tokenDigests: tokenDigests({ API_TOKENS: TOKEN }) });
    const request = { method: 'GET', pathname: '/api/trees/suggest', query: 'search=sequioa' };
    const ask = (headers: Record<string, string>) =>
      edge({ ...request, header: (name) => new Map(Object.entries(headers)).get(name) ?? null });
    const lookup = ask({ authorization: `Bearer ${TOKEN}` });
    if (lookup.type !== 'lookup') throw new Error(`expected a lookup, got ${lookup.type}`);
    expect(lookup.files.length).toBeGreaterThan(0);
    for (const file of lookup.files) expect(Object.keys(manifest.index)).toContain(file);
    const answer = lookup.answer(read(lookup.files));
    const etag = `"${sha256(giantSequoia).slice(0, 32)}"`;
    expect(answer).toEqual({
      type: 'respond',
      status: 200,
      headers: { ...common, ...json, 'Cache-Control': 'private, max-age=300', ETag: etag },
      body: { text: giantSequoia },
      encoding: 'identity',
      omitBody: false,
    });
    // Asked again, the answer is remembered: no lookup, the same answer.
    expect(ask({ authorization: `Bearer ${TOKEN}` })).toBe(answer);
    expect(ask({ authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' })).toMatchObject({
      headers: { 'Content-Encoding': 'gzip', ETag: `"${sha256(giantSequoia).slice(0, 32)}-gzip"` },
      body: { text: giantSequoia },
      encoding: 'gzip',
    });
    expect(ask({ authorization: `Bearer ${TOKEN}`, 'if-none-match': etag })).toMatchObject({
      status: 304,
      omitBody: true,
    });
  });

  test('another near miss over shards already read is answered without a lookup', () => {
    const edge = createEdge({ manifest, tokenDigests: tokenDigests({ API_TOKENS: TOKEN }) });
    const ask = (query: string) =>
      edge({
        method: 'GET',
        pathname: '/api/trees/suggest',
        query,
        header: (name) => (name === 'authorization' ? `Bearer ${TOKEN}` : null),
      });
    const first = ask('search=sequioa');
    if (first.type === 'lookup') first.answer(read(first.files));
    // Another typo whose variants fall in the same shards: a new answer, made at once.
    expect(ask('search=sequoai')).toMatchObject({ type: 'respond', status: 200, body: { text: giantSequoia } });
  });

  test('release=<id> pins a suggestion to the release, unknown releases are 404', () => {
    const [release] = manifest.releases;
    expect(decision('GET', `/api/trees/suggest?search=oak&release=${release?.id}`, authorized())).toMatchObject({
      status: 200,
      headers: { 'Cache-Control': 'private, max-age=31536000, immutable', 'X-Data-Version': release?.version },
      body: { file: `api/releases/${release?.id}/trees/suggest/key/oak.json` },
    });
    expect(decision('GET', '/api/trees/suggest?search=oak&release=1999-01-01', authorized())).toMatchObject({
      status: 404,
      body: { file: fixedBodyPath('release-not-found') },
    });
  });

  test('/api/releases/suggest and a path below suggest are unknown endpoints', () => {
    for (const target of ['/api/releases/suggest', '/api/trees/suggest/oak', '/api/suggest'])
      expect({ target, decision: decision('GET', target, authorized()) }).toMatchObject({
        target,
        decision: { status: 404, body: { file: fixedBodyPath('unknown-endpoint') } },
      });
  });
});

describe('releases and methods (mutation survivors)', () => {
  const [release] = manifest.releases;
  const releaseId = release?.id ?? 'no release in dist/';

  test('GET /api/releases: 200 with the list of releases, cached as a found answer', () => {
    expect(decision('GET', '/api/releases', authorized())).toMatchObject({
      status: 200,
      headers: { 'Cache-Control': 'private, max-age=300', ETag: etagOf('api/releases/index.json') },
      body: { file: 'api/releases/index.json' },
    });
  });

  test('release=<id>: the file of that release, its data version, cached for good; its not-found uncached', () => {
    expect(decision('GET', `/api/trees?release=${releaseId}`, authorized())).toMatchObject({
      status: 200,
      headers: { 'X-Data-Version': release?.version, 'Cache-Control': 'private, max-age=31536000, immutable' },
      body: { file: `api/releases/${releaseId}/trees/index.json` },
    });
    expect(decision('GET', `/api/trees?release=${releaseId}&search=nothing-like-it`, authorized())).toMatchObject({
      status: 404,
      headers: { 'X-Data-Version': release?.version, 'Cache-Control': 'no-store' },
      body: { file: `api/releases/${releaseId}/trees/not-found.json` },
    });
    // A search no file can answer (over 100 characters) is that release's not-found too.
    expect(decision('GET', `/api/trees?release=${releaseId}&search=${'a'.repeat(101)}`, authorized())).toMatchObject({
      status: 404,
      headers: { 'X-Data-Version': release?.version, 'Cache-Control': 'no-store' },
      body: { file: `api/releases/${releaseId}/trees/not-found.json` },
    });
  });

  test('a method in lower case is that method: head is a HEAD, without the body', () => {
    const get = decision('GET', '/api/trees', authorized());
    expect(decision('head', '/api/trees', authorized())).toEqual({ ...get, omitBody: true });
  });

  test('the 304 of each encoding carries the ETag of that encoding', () => {
    const notModified = (coding: string, suffix: string) =>
      decision(
        'GET',
        '/api/cutters',
        authorized({ 'Accept-Encoding': coding, 'If-None-Match': etagOf('api/cutters/index.json', suffix) }),
      );
    const br = notModified('br', '-br');
    const gzip = notModified('gzip', '-gzip');
    expect([br, gzip].map((answer) => answer.type === 'respond' && [answer.status, answer.headers['ETag']])).toEqual([
      [304, etagOf('api/cutters/index.json', '-br')],
      [304, etagOf('api/cutters/index.json', '-gzip')],
    ]);
  });
});

describe('remembered answers (mutation survivors)', () => {
  /** The answers on one core to each request in turn, beside the answer of a new core to it alone. */
  const onOneCoreAndNew = (requests: readonly [method: string, target: string, headers: Record<string, string>][]) => {
    const shared = newCore();
    return requests.map(([method, target, headers]) => ({
      request: [method, target, headers],
      remembered: answered(decision(method, target, headers, shared)),
      fresh: answered(decision(method, target, headers, newCore())),
    }));
  };
  /** Each remembered answer is the new core's, shown with its request when it is not. */
  const expectAlike = (asked: ReturnType<typeof onOneCoreAndNew>) => {
    for (const { request, remembered, fresh } of asked)
      expect({ request, answer: remembered }).toEqual({ request, answer: fresh });
  };
  const [release] = manifest.releases;

  test('each method, encoding and If-None-Match of one file has an answer of its own, asked in any order', () => {
    const file = 'api/vehicles/index.json';
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
    for (const order of [requests, requests.toReversed()]) expectAlike(onOneCoreAndNew(order));
  });

  test('a near miss of a release and the same near miss of the current data are answered apart', () => {
    const asked = onOneCoreAndNew([
      ['GET', '/api/trees/suggest?search=sequioa', authorized()],
      ['GET', `/api/trees/suggest?search=sequioa&release=${release?.id}`, authorized()],
    ]);
    expectAlike(asked);
    expect(asked[1]?.remembered).toMatchObject({
      headers: { 'Cache-Control': 'private, max-age=31536000, immutable', 'X-Data-Version': release?.version },
    });
  });

  test('the same near miss pinned to two releases is answered by each release', () => {
    // A second release beside the build's: its files are the first one's, its data version its own.
    const [first = 'no release in dist/', second] = [release?.id, '2999-01-01'];
    const copied = <T>(paths: Record<string, T>) =>
      Object.fromEntries(
        Object.entries(paths).flatMap(([path, value]) => {
          const mine = path.startsWith(`api/releases/${first}/`);
          return mine
            ? [
                [path, value],
                [path.replace(first, second), value],
              ]
            : [[path, value]];
        }),
      );
    const twoReleases = {
      ...manifest,
      files: copied(manifest.files),
      index: copied(manifest.index),
      releases: [{ id: second, version: 'second-version' }, ...manifest.releases],
    };
    const core = createEdge({ manifest: twoReleases, tokenDigests: tokenDigests({ API_TOKENS: TOKEN }) });
    const versions = [first, second].map((id) => {
      const made = decision('GET', `/api/trees/suggest?search=sequioa&release=${id}`, authorized(), core);
      const answer = made.type === 'lookup' ? made.answer(read(made.files.map((f) => f.replace(second, first)))) : made;
      return answer.type === 'respond' && answer.headers['X-Data-Version'];
    });
    expect(versions).toEqual([release?.version, 'second-version']);
  });

  test('near misses of two kinds on one core each get their own body', () => {
    const asked = onOneCoreAndNew([
      ['GET', '/api/trees/suggest?search=sequioa', authorized()],
      ['GET', '/api/cutters/suggest?search=knfie', authorized()],
    ]);
    expectAlike(asked);
    expect(asked.map(({ remembered }) => remembered.type === 'respond' && remembered.body)).toEqual([
      { text: expect.stringContaining('"Giant Sequoia"') },
      { text: expect.stringContaining('"Knife"') },
    ]);
  });

  test('a preflight has no body, so no encoding, whatever Accept-Encoding asks', () => {
    expect(decision('OPTIONS', '/api/trees', { 'Accept-Encoding': 'br' })).toMatchObject({
      status: 204,
      encoding: 'identity',
    });
  });
});

describe('paths outside /api/', () => {
  test('the site is static', () => {
    for (const target of ['/', '/trees/oak-tree/', '/apiary', '/docs/api/', '/api.html'])
      expect({ target, decision: decision('GET', target) }).toEqual({ target, decision: { type: 'static' } });
  });

  test('another method than GET or HEAD: 405 "Method not allowed. Use GET." with Allow: GET, HEAD', () => {
    for (const method of ['POST', 'put', 'DELETE', 'TRACE', 'OPTIONS', 'PROPFIND']) {
      expect({ method, decision: decision(method, '/trees/oak-tree/') }).toEqual({
        method,
        decision: {
          type: 'respond',
          status: 405,
          headers: { ...common, ...json, Allow: 'GET, HEAD', 'Cache-Control': 'no-store' },
          body: { text: errorText('Method not allowed. Use GET.') },
          encoding: 'identity',
          omitBody: false,
        },
      });
    }
    // Remembered apart from the API's 405, whose Allow differs, in either order.
    expect(decision('POST', '/api/trees', authorized())).toMatchObject({ headers: { Allow: 'GET, HEAD, OPTIONS' } });
    expect(decision('POST', '/')).toMatchObject({ headers: { Allow: 'GET, HEAD' } });
    expect(decision('head', '/')).toEqual({ type: 'static' });
  });

  test('a path that a file server would take into the API folder: 404 "Not found."', () => {
    expect(decision('GET', '/%2Fapi/trees/index.json', authorized())).toEqual({
      type: 'respond',
      status: 404,
      headers: { ...common, ...json },
      body: { file: fixedFile(errorText('Not found.')) },
      encoding: 'identity',
      omitBody: false,
    });
  });

  test('reachesApiFolder decodes up to four times, resolves . and .., \\ and letter case', () => {
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
