// Properties of the pure edge core over the real build manifest: whatever the method, path,
// query and headers, it decides without throwing, never answers 5xx, never hands out API
// data (or confirms an ETag) without a valid token, and only ever names files of the build.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { API_DIR } from '../../src/contract/paths.ts';
import { createEdge, type EdgeDecision, type EdgeRequest } from '../../src/edge/core.ts';
import { etagFor } from '../../src/edge/negotiation.ts';
import { tokenDigests } from '../../src/edge/tokens.ts';
import { kindIds } from '../../src/schema/kinds.ts';
import { readManifest } from '../../src/server/body-store.ts';
import { requestUrl } from '../../src/server/node-adapter.ts';
import { distDir } from '../support/runtimes.ts';

const VALID_TOKEN = 'property-valid-token';
/** Configured only through its digest. */
const DIGEST_TOKEN = 'property-digest-token';
const manifest = await readManifest(distDir);
const decide = createEdge({
  manifest,
  tokenDigests: tokenDigests({
    API_TOKENS: VALID_TOKEN,
    API_TOKEN_SHA256: createHash('sha256').update(DIGEST_TOKEN).digest('hex'),
  }),
});
const apiFiles = Object.keys(manifest.files);
const RUNS = { numRuns: 2_000 };

// Pieces that the rules care about, mixed with anything at all.
const anyText = fc.string({ unit: 'binary', maxLength: 30 });
const method = fc.oneof(
  fc.constantFrom(
    'GET',
    'HEAD',
    'OPTIONS',
    'POST',
    'PUT',
    'DELETE',
    'PATCH',
    'get',
    'Head',
    'options',
    'TRACE',
    'CONNECT',
  ),
  anyText,
);
const segment = fc.oneof(
  fc.constantFrom(
    API_DIR,
    'API',
    'Api',
    ...kindIds,
    'suggest',
    'Trees',
    '',
    '.',
    '..',
    '%2e',
    '%2E%2e',
    '%2f',
    '%2F',
    '%5c',
    '%252f',
    '%00',
    '%',
    '%zz',
    '%E0%A4%A',
  ),
  fc.constantFrom(
    'index.json',
    'not-found.json',
    'level',
    'name',
    '1.json',
    'oaktree.json',
    'manifest.json',
    'ünïcödé',
    '🌳',
    '\\api',
  ),
  fc.webSegment(),
  anyText,
);
const path = fc.oneof(
  fc.array(segment, { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
  fc.tuple(fc.constantFrom(...kindIds), fc.constantFrom('', '/')).map(([kind, slash]) => `/api/${kind}${slash}`),
  fc.array(segment, { maxLength: 4 }).map((segments) => `/api/${segments.join('/')}`),
);
const searchValue = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    'NULL',
    'undefined',
    '5',
    '05',
    '1',
    '0',
    '107',
    '99999999999999999999',
    'Oak Tree',
    'oak_tree',
    'breadknife',
    'small',
    'oak',
    'sequioa',
    'giant%20sekuoya',
  ),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '+', '%20', 'Oak%Tree', '５', '\u0301', 'a'.repeat(101)),
  anyText,
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom('search', 'Search', 'q', ''), anyText), searchValue), { maxLength: 4 })
    .map((pairs) => `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`),
  anyText.map((text) => `?${text}`),
);

interface Presented {
  authorization: string | undefined;
  valid: boolean;
}
const validAuthorization = fc
  .tuple(
    fc.constantFrom(VALID_TOKEN, DIGEST_TOKEN),
    fc.constantFrom('', 'Bearer ', 'bearer ', 'BEARER  ', ' Bearer\t'),
    fc.constantFrom('', ' '),
  )
  .map(([token, scheme, trailing]): Presented => ({ authorization: `${scheme}${token}${trailing}`, valid: true }));
const invalidAuthorization = fc
  .oneof(
    fc.constant(undefined),
    fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      `${VALID_TOKEN}x`,
      `Basic ${VALID_TOKEN}`,
      VALID_TOKEN.toUpperCase(),
      createHash('sha256').update(DIGEST_TOKEN).digest('hex'),
    ),
    anyText.filter((text) => !text.includes(VALID_TOKEN) && !text.includes(DIGEST_TOKEN)),
    anyText
      .map((text) => `Bearer ${text}`)
      .filter((text) => !text.includes(VALID_TOKEN) && !text.includes(DIGEST_TOKEN)),
  )
  .map((authorization): Presented => ({ authorization, valid: false }));

const acceptEncoding = fc.option(
  fc.oneof(
    fc.constantFrom('br', 'gzip', 'gzip, deflate, br', 'br;q=0', 'identity', '*', 'br;q=abc', 'gzip;q=1.5', 'zstd'),
    fc
      .array(
        fc.tuple(
          fc.constantFrom('br', 'gzip', 'identity', 'deflate', '*', 'BR'),
          fc.option(fc.constantFrom('0', '0.5', '1', '1.000', 'x', '-1', '')),
        ),
        { maxLength: 4 },
      )
      .map((elements) => elements.map(([coding, q]) => (q === null ? coding : `${coding};q=${q}`)).join(', ')),
    anyText,
  ),
  { nil: undefined },
);
const someEtag = fc
  .constantFrom(...apiFiles)
  .chain((file) =>
    fc
      .constantFrom('identity', 'br', 'gzip')
      .map((encoding) => etagFor(manifest.files[file]?.sha256 ?? '', encoding as 'identity' | 'br' | 'gzip')),
  );
const ifNoneMatch = fc.option(
  fc.oneof(
    someEtag,
    someEtag.map((etag) => `W/${etag}`),
    fc.constant('*'),
    anyText,
  ),
  { nil: undefined },
);

interface Case {
  method: string;
  target: string;
  presented: Presented;
  headers: Record<string, string | undefined>;
}
const anyCase = (authorization: fc.Arbitrary<Presented>) =>
  fc
    .record({
      method,
      target: fc.tuple(path, query).map(([p, q]) => p + q),
      presented: authorization,
      acceptEncoding,
      ifNoneMatch,
    })
    .map(
      ({ method, target, presented, acceptEncoding, ifNoneMatch }): Case => ({
        method,
        target,
        presented,
        headers: {
          authorization: presented.authorization,
          'accept-encoding': acceptEncoding,
          'if-none-match': ifNoneMatch,
        },
      }),
    );

interface Decided {
  request: EdgeRequest;
  /** A lookup already answered from the files it named, as an adapter does. */
  decision: Exclude<EdgeDecision, { type: 'lookup' }>;
  /** The files a lookup named. */
  lookedUp: string[];
}

/** The decision for a case, or undefined for a target no URL parser accepts (no runtime would get that far). */
function decideCase({ method, target, headers }: Case): Decided | undefined {
  const url = requestUrl(target);
  if (!url) return undefined;
  const request: EdgeRequest = { method, url, header: (name) => headers[name] ?? null };
  const decision = decide(request);
  if (decision.type !== 'lookup') return { request, decision, lookedUp: [] };
  const texts = decision.files.map((file) => readFileSync(join(distDir, file), 'utf8'));
  return { request, decision: decision.answer(texts), lookedUp: decision.files };
}

const isApiPath = (pathname: string) => pathname === '/api' || pathname.startsWith('/api/');
const fileOf = (decision: Decided['decision']) =>
  decision.type === 'respond' && decision.body && 'file' in decision.body ? decision.body.file : undefined;

describe('the edge core, for any method, path, query and headers', () => {
  test('never throws and never answers 5xx', () => {
    fc.assert(
      fc.property(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), (request) => {
        const decided = decideCase(request);
        if (decided?.decision.type === 'respond') expect(decided.decision.status).toBeLessThan(500);
      }),
      RUNS,
    );
  });

  test('without a valid token: never a 200, a 304 or an API file, and every /api/ request but a preflight is 401', () => {
    fc.assert(
      fc.property(anyCase(invalidAuthorization), (request) => {
        const decided = decideCase(request);
        if (!decided || decided.decision.type === 'static') return;
        const { decision, request: edgeRequest, lookedUp } = decided;
        expect(lookedUp).toEqual([]);
        expect(decision.status).not.toBe(200);
        expect(decision.status).not.toBe(304);
        expect(fileOf(decision)).toBeUndefined();
        if (isApiPath(edgeRequest.url.pathname) && edgeRequest.method.toUpperCase() !== 'OPTIONS')
          expect(decision.status).toBe(401);
      }),
      RUNS,
    );
  });

  test('every file the core chooses is one of the API files of the manifest', () => {
    fc.assert(
      fc.property(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), (request) => {
        const decided = decideCase(request);
        const file = decided && fileOf(decided.decision);
        for (const chosen of [...(file === undefined ? [] : [file]), ...(decided?.lookedUp ?? [])]) {
          expect(apiFiles).toContain(chosen);
          expect(chosen.startsWith(`${API_DIR}/`)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  test('with a valid token, a GET or HEAD of an endpoint is 200 or 304 with a success file, or 404 with its not-found file', () => {
    const endpointCase = fc
      .record({
        method: fc.constantFrom('GET', 'HEAD'),
        kind: fc.constantFrom(...kindIds),
        slash: fc.constantFrom('', '/'),
        query,
        presented: validAuthorization,
        acceptEncoding,
        ifNoneMatch,
      })
      .map(
        ({ method, kind, slash, query, presented, acceptEncoding, ifNoneMatch }): Case => ({
          method,
          target: `/api/${kind}${slash}${query}`,
          presented,
          headers: {
            authorization: presented.authorization,
            'accept-encoding': acceptEncoding,
            'if-none-match': ifNoneMatch,
          },
        }),
      );
    fc.assert(
      fc.property(endpointCase, (request) => {
        const decided = decideCase(request);
        if (!decided) return;
        const { decision } = decided;
        if (decision.type !== 'respond') throw new Error(`${request.target} was not answered by the API`);
        const kind = decided.request.url.pathname.split('/')[2];
        if (decision.status === 404) expect(fileOf(decision)).toBe(`${API_DIR}/${kind}/not-found.json`);
        else if (decision.status === 304) expect(request.headers['if-none-match']).toBeDefined();
        else {
          expect(decision.status).toBe(200);
          expect(fileOf(decision)).toMatch(new RegExp(`^${API_DIR}/${kind}/(index|level/\\d+|name/[a-z0-9]+)\\.json$`));
        }
        expect(decision.omitBody).toBe(request.method.toUpperCase() === 'HEAD' || decision.status === 304);
      }),
      RUNS,
    );
  });

  test('with a valid token, a GET or HEAD of a suggest endpoint is 200 or 304, from an answer file or merged shards', () => {
    const suggestCase = fc
      .record({
        method: fc.constantFrom('GET', 'HEAD'),
        kind: fc.constantFrom(...kindIds),
        slash: fc.constantFrom('', '/'),
        query,
        presented: validAuthorization,
        ifNoneMatch,
      })
      .map(
        ({ method, kind, slash, query, presented, ifNoneMatch }): Case => ({
          method,
          target: `/api/${kind}/suggest${slash}${query}`,
          presented,
          headers: { authorization: presented.authorization, 'if-none-match': ifNoneMatch },
        }),
      );
    fc.assert(
      fc.property(suggestCase, (request) => {
        const decided = decideCase(request);
        if (!decided) return;
        const { decision, lookedUp } = decided;
        if (decision.type !== 'respond') throw new Error(`${request.target} was not answered by the API`);
        const kind = decided.request.url.pathname.split('/')[2];
        if (decision.status === 304) expect(request.headers['if-none-match']).toBeDefined();
        else expect(decision.status).toBe(200);
        const body = decision.body;
        if (body && 'file' in body) expect(body.file).toMatch(new RegExp(`^${API_DIR}/${kind}/suggest/(?!near/)`));
        else if (body) expect('merged' in body && lookedUp.length > 0).toBe(true);
        for (const shard of lookedUp) expect(shard).toMatch(new RegExp(`^${API_DIR}/${kind}/suggest/near/`));
      }),
      RUNS,
    );
  });

  test('every /api/ answer carries the contract headers, and Content-Type exactly when it has a body', () => {
    fc.assert(
      fc.property(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), (request) => {
        const decided = decideCase(request);
        if (decided?.decision.type !== 'respond' || !isApiPath(decided.request.url.pathname)) return;
        const { headers, body, status } = decided.decision;
        expect(headers).toMatchObject({
          'Access-Control-Allow-Origin': '*',
          'X-Content-Type-Options': 'nosniff',
          'X-Data-Version': manifest.version,
        });
        expect(headers['Content-Type']).toBe(body ? 'application/json; charset=utf-8' : undefined);
        expect(body === undefined).toBe(status === 204 || status === 304);
      }),
      RUNS,
    );
  });

  test('a path left to the static site never leads into the API folder once decoded and normalized', () => {
    fc.assert(
      fc.property(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), (request) => {
        const decided = decideCase(request);
        if (decided?.decision.type !== 'static') return;
        const { pathname } = decided.request.url;
        let decoded = pathname;
        try {
          decoded = decodeURIComponent(pathname);
        } catch {
          // A static file server gives up on such a path too.
        }
        const resolved = posix.normalize(decoded.replaceAll('\\', '/')).toLowerCase();
        expect(resolved === `/${API_DIR}` || resolved.startsWith(`/${API_DIR}/`)).toBe(false);
      }),
      RUNS,
    );
  });
});
