// Properties of the pure edge core over the real build manifest: whatever the method, path,
// query and headers, it decides without throwing, never answers 5xx, never hands out API
// data (or confirms an ETag) without a valid token, and only ever names files of the build.
import { mcpMount } from '../../src/apps/mcp/mount.ts';
import { mountAt } from '../../src/edge/apps.ts';
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FIXED_BODIES } from '../../src/contract/messages.ts';
import { API_DIR, fixedRoute, listRoute, SUGGEST_SHARD } from '../../src/contract/paths.ts';
import { type AppHandOff, createEdge, type EdgeRequest, type EdgeResponse } from '../../src/edge/core.ts';
import { etagFor } from '../../src/edge/negotiation.ts';
import { tokenDigests } from '../../src/edge/tokens.ts';
import { kindIds } from '../../src/schema/kinds.ts';
import { loadBodyStore } from '../../src/server/body-store.ts';
import { scopeRoutes } from '../support/dist-routes.ts';
import { requestTarget } from '../../src/server/node-adapter.ts';
import { distDir } from '../support/runtimes.ts';

const VALID_TOKEN = 'property-valid-token';
/** Configured only through its digest. */
const DIGEST_TOKEN = 'property-digest-token';
const store = await loadBodyStore(distDir);
const manifest = store.manifest;
const digests = await tokenDigests({
  API_TOKENS: VALID_TOKEN,
  API_TOKEN_SHA256: createHash('sha256').update(DIGEST_TOKEN).digest('hex'),
});
const newCore = () => createEdge({ index: store.index, tokenDigests: digests });
/** One core for every run: what it remembers from one case must never change another's answer. */
const decide = newCore();
/** Each scope's routes (undefined: the current data), and every stored body the API may send. */
const scopes = new Map(
  [undefined, ...manifest.releases.map((release) => release.id)].map((release) => [release, scopeRoutes(release)]),
);
const currentRoutes = scopes.get(undefined) ?? new Map<string, string>();
const sentBodies = [...scopes.values()].flatMap((routes) =>
  [...routes].filter(([route]) => !route.includes(`/${SUGGEST_SHARD}`)).map(([, body]) => body),
);
/** The stored body of a route of the current data. */
const storedOf = (route: string) => currentRoutes.get(route) ?? `no route ${route}`;
// PROPERTY_RUNS: fewer runs where each run is slow (the mutation run sets it; the fixed cases stay).
const RUNS = { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 2_000) };

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
  fc
    .tuple(fc.constantFrom(...kindIds), fc.constantFrom('', '/suggest'), fc.constantFrom('', '/'))
    .map(([kind, endpoint, slash]) => `/api/${kind}${endpoint}${slash}`),
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
    'sequioa',
    'oa',
    'kn',
  ),
  // Release ids (for release=): the build's, and ones it does not have.
  fc.constantFrom(...manifest.releases.map((release) => release.id), '1999-01-01', '2026-11-22-2', '..'),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '+', '%20', 'Oak%Tree', '５', '\u0301', 'a'.repeat(101)),
  anyText,
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom('search', 'Search', 'release', 'q', ''), anyText), searchValue), {
      maxLength: 4,
    })
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
  .constantFrom(...sentBodies)
  .chain((body) =>
    fc.constantFrom('identity', 'br', 'gzip').map((encoding) => etagFor(body, encoding as 'identity' | 'br' | 'gzip')),
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

type Decision = EdgeResponse | AppHandOff | { type: 'static' };

/** The decision for a case, or undefined for a target no URL parser accepts (no runtime would get that far). */
async function decideCase(
  { method, target, headers }: Case,
  core = decide,
): Promise<{ request: EdgeRequest; decision: Decision } | undefined> {
  const parsed = requestTarget(target);
  if (!parsed) return undefined;
  const mount = mountAt(parsed.pathname, [mcpMount]);
  const request: EdgeRequest = { method, ...parsed, header: (name) => headers[name] ?? null, mount };
  const decision = await core(request);
  if (decision.type === 'counted') throw new Error('no rate limit is configured here: no answer is counted');
  return { request, decision };
}

const fixedFiles = FIXED_BODIES.map(({ name }) => storedOf(fixedRoute(name)));

/** Whether the request's If-None-Match lists `etag` (or its weak form) or is `*`. */
function namesEtag(request: Case, etag: string | undefined): boolean {
  const listed = (request.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim());
  return listed.includes('*') || (etag !== undefined && (listed.includes(etag) || listed.includes(`W/${etag}`)));
}

/**
 * Static paths that a file server decoding them (once or more) and resolving `..`, `\\` and
 * letter case would take into the API folder. The static-path property always tries these.
 */
const DANGEROUS_STATIC_PATHS = [
  '/%2F/api/trees/index.json',
  '/%2f%2fapi%2ftrees%2findex.json',
  '/api%2ftrees%2findex.json',
  '/API%2Ftrees%2Findex.json',
  '/api%252ftrees%252findex.json',
  '/%252F/api/trees/index.json',
  '/api%25252ftrees%25252findex.json',
  '/%61pi/trees/index.json',
  '/API/trees/index.json',
  '/Api/manifest.json',
  '/x/..%2fapi/trees/index.json',
  '/x/..%252fapi/trees/index.json',
  '/%5capi%5ctrees%5cindex.json',
  '/x%5c..%5capi/trees/index.json',
];
const dangerousCases = DANGEROUS_STATIC_PATHS.map(
  (target): Case => ({
    method: 'GET',
    target,
    presented: { authorization: `Bearer ${VALID_TOKEN}`, valid: true },
    headers: { authorization: `Bearer ${VALID_TOKEN}` },
  }),
);

/** A path as a file server may see it: decoded until it no longer changes, `\\` as `/`, `..` resolved, lower case. */
function resolvedLikeAFileServer(pathname: string): string {
  let decoded = pathname;
  for (let round = 0; round < 10; round++) {
    let next = decoded;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      // A static file server gives up on such a path too.
    }
    if (next === decoded) break;
    decoded = next;
  }
  return posix.normalize(decoded.replaceAll('\\', '/')).toLowerCase();
}

const isApiPath = (pathname: string) => pathname === '/api' || pathname.startsWith('/api/');
const fileOf = (decision: Decision) =>
  decision.type === 'respond' && decision.body && 'stored' in decision.body ? decision.body.stored : undefined;

describe('the edge core, for any method, path, query and headers', () => {
  test('never throws and never answers 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), async (request) => {
        const decided = await decideCase(request);
        if (decided?.decision.type === 'respond') expect(decided.decision.status).toBeLessThan(500);
      }),
      RUNS,
    );
  });

  test('a core that has answered other requests answers each one as a new core does', async () => {
    // Requests that share answers are mixed in often, so each run asks some file several ways.
    const sharedFile = storedOf(listRoute('vehicles'));
    const related = fc
      .record({
        method: fc.constantFrom('GET', 'HEAD'),
        target: fc.constantFrom(
          '/api/vehicles',
          '/api/trees/suggest?search=sequioa',
          `/api/trees/suggest?search=sequioa&release=${manifest.releases[0]?.id}`,
          '/api/cutters/suggest?search=knfie',
        ),
        acceptEncoding: fc.constantFrom(undefined, 'br', 'gzip'),
        ifNoneMatch: fc.constantFrom(
          undefined,
          '*',
          ...['identity', 'br', 'gzip'].map((encoding) => etagFor(sharedFile, encoding as 'identity' | 'br' | 'gzip')),
        ),
      })
      .map(
        ({ method, target, acceptEncoding, ifNoneMatch }): Case => ({
          method,
          target,
          presented: { authorization: VALID_TOKEN, valid: true },
          headers: { authorization: VALID_TOKEN, 'accept-encoding': acceptEncoding, 'if-none-match': ifNoneMatch },
        }),
      );
    const oneCase = fc.oneof(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), related);
    await fc.assert(
      fc.asyncProperty(fc.array(oneCase, { minLength: 2, maxLength: 8 }), async (cases) => {
        const shared = newCore();
        for (const request of cases)
          expect({ request, answer: (await decideCase(request, shared))?.decision }).toEqual({
            request,
            answer: (await decideCase(request, newCore()))?.decision,
          });
      }),
      { numRuns: Math.ceil(RUNS.numRuns / 4) },
    );
  });

  test('without a valid token: never a 200, 304 or API body; every /api/ request but a preflight is 401', async () => {
    await fc.assert(
      fc.asyncProperty(anyCase(invalidAuthorization), async (request) => {
        const decided = await decideCase(request);
        if (!decided || decided.decision.type === 'static') return;
        const { decision, request: edgeRequest } = decided;
        if (decision.type === 'app')
          throw new Error(`${edgeRequest.pathname}: handed to the app ${decision.app} without a valid token or off`);
        expect(decision.status).not.toBe(200);
        expect(decision.status).not.toBe(304);
        // Only the edge's fixed error bodies, never an envelope of the API.
        const file = fileOf(decision);
        if (file !== undefined) expect(fixedFiles).toContain(file);
        if (isApiPath(edgeRequest.pathname) && edgeRequest.method.toUpperCase() !== 'OPTIONS')
          expect(decision.status).toBe(401);
      }),
      RUNS,
    );
  });

  test('every body the core chooses is a stored body a route names, never a near-miss shard', async () => {
    await fc.assert(
      fc.asyncProperty(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), async (request) => {
        const decided = await decideCase(request);
        const file = decided && fileOf(decided.decision);
        if (file !== undefined) expect(sentBodies).toContain(file);
      }),
      RUNS,
    );
  });

  test('with a valid token, a GET or HEAD of an endpoint is 200 or 304 with a success body, or 404', async () => {
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
    await fc.assert(
      fc.asyncProperty(endpointCase, async (request) => {
        const decided = await decideCase(request);
        if (!decided) return;
        const { decision } = decided;
        if (decision.type !== 'respond') throw new Error(`${request.target} was not answered by the API`);
        const kind = decided.request.pathname.split('/')[2];
        // The first release parameter picks the files: a release's own, none for an unknown id.
        const release = new URLSearchParams(decided.request.query).get('release')?.trim() || undefined;
        const known = release === undefined || manifest.releases.some((candidate) => candidate.id === release);
        const routes = scopes.get(release) ?? new Map<string, string>();
        if (!known)
          expect({ status: decision.status, body: decision.body }).toEqual({
            status: 404,
            body: { stored: storedOf(fixedRoute('release-not-found')) },
          });
        else if (decision.status === 404) expect(fileOf(decision)).toBe(routes.get(`${kind}/not-found`));
        else if (decision.status === 304) expect(namesEtag(request, decision.headers['ETag'])).toBe(true);
        else {
          expect(decision.status).toBe(200);
          expect(namesEtag(request, decision.headers['ETag'])).toBe(false);
          // The body of the kind's list, a level or a name of that scope.
          const answering = [...routes]
            .filter(([route, body]) => body === fileOf(decision) && route.startsWith(`${kind}/`))
            .map(([route]) => route.slice(`${kind}/`.length));
          expect(answering.some((route) => /^(list|level\/\d+|name\/[a-z0-9]+)$/.test(route))).toBe(true);
        }
        expect(decision.omitBody).toBe(request.method.toUpperCase() === 'HEAD' || decision.status === 304);
      }),
      RUNS,
    );
  });

  test('every /api/ answer carries the contract headers, and Content-Type exactly when it has a body', async () => {
    await fc.assert(
      fc.asyncProperty(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), async (request) => {
        const decided = await decideCase(request);
        if (decided?.decision.type !== 'respond' || !isApiPath(decided.request.pathname)) return;
        const { headers, body, status } = decided.decision;
        const pinned = new URLSearchParams(decided.request.query).get('release');
        const release = manifest.releases.find(({ id }) => id === pinned);
        expect(headers).toMatchObject({ 'Access-Control-Allow-Origin': '*', 'X-Content-Type-Options': 'nosniff' });
        // The current data's version, or the pinned release's once the request reaches its data.
        expect([manifest.version, release?.version]).toContain(headers['X-Data-Version']);
        expect(headers['Content-Type']).toBe(body ? 'application/json; charset=utf-8' : undefined);
        expect(body === undefined).toBe(status === 204 || status === 304);
      }),
      RUNS,
    );
  });

  test('a path left to the static site never leads into the API folder once decoded and normalized', async () => {
    await fc.assert(
      fc.asyncProperty(anyCase(fc.oneof(validAuthorization, invalidAuthorization)), async (request) => {
        const decided = await decideCase(request);
        if (decided?.decision.type !== 'static') return;
        const resolved = resolvedLikeAFileServer(decided.request.pathname);
        expect(resolved === `/${API_DIR}` || resolved.startsWith(`/${API_DIR}/`)).toBe(false);
      }),
      { ...RUNS, examples: dangerousCases.map((request) => [request]) },
    );
  });
});

describe('fixed cases beside the properties', () => {
  test.each(DANGEROUS_STATIC_PATHS)('%s is refused with 404, never left to the static site', async (target) => {
    const decided = await decideCase({
      method: 'GET',
      target,
      presented: { authorization: undefined, valid: false },
      headers: {},
    });
    expect(decided?.decision).toMatchObject({
      type: 'respond',
      status: 404,
      body: { stored: storedOf(fixedRoute('not-found')) },
    });
  });

  test.each(['/index.html', '/trees/oak-tree/', '/apiary/', '/docs/api/', '/x/api/trees/index.json'])(
    '%s, which does not reach the API folder, is left to the static site',
    async (target) => {
      expect(
        await decideCase({ method: 'GET', target, presented: { authorization: undefined, valid: false }, headers: {} }),
      ).toMatchObject({ decision: { type: 'static' } });
    },
  );

  describe('304 only when If-None-Match names the ETag of the body, or is *', () => {
    const treesEtag = etagFor(storedOf(listRoute('trees')), 'identity');
    const statusWith = (ifNoneMatch: string) =>
      decideCase({
        method: 'GET',
        target: '/api/trees',
        presented: { authorization: VALID_TOKEN, valid: true },
        headers: { authorization: VALID_TOKEN, 'if-none-match': ifNoneMatch },
      });
    const cases: [ifNoneMatch: string, status: number][] = [
      [treesEtag, 304],
      [`W/${treesEtag}`, 304],
      [`"stale", ${treesEtag}`, 304],
      ['*', 304],
      ['"stale"', 200],
      [treesEtag.slice(1, -1), 200],
      [etagFor(storedOf(listRoute('cutters')), 'identity'), 200],
      [etagFor(storedOf(listRoute('trees')), 'gzip'), 200],
      ['', 200],
      ['garbage', 200],
    ];
    test.each(cases)('If-None-Match: %s -> %i', async (ifNoneMatch, status) => {
      const decision = (await statusWith(ifNoneMatch))?.decision;
      expect(decision).toMatchObject({ type: 'respond', status, headers: { ETag: treesEtag } });
    });
  });
});
