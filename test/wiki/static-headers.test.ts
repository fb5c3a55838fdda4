// The static site's header rules: one _headers file, the same headers from every runtime; the
// wiki's security headers on every page and file of it, and on none of the runtimes' own answers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { PUBLISHED_BUNDLES, type Latest } from '../../src/contract/bundle-layout.ts';
import { parseHeaderRules } from '../../src/server/static-site.ts';
import { PAGES } from '../support/wiki-pages.ts';
import { contractRuntimeNames, distDir, startRuntime, type Runtime } from '../support/runtimes.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const TOKEN = 'static-headers-token';

/** The wiki's security headers, each sent on every page and file of the wiki. */
const SECURITY_HEADERS = ['content-security-policy', 'x-content-type-options', 'referrer-policy', 'x-frame-options'];

/** Their values in the rule for every path ("/*") of public/_headers, the one list every runtime sends. */
const siteRule = parseHeaderRules(readFileSync(join(projectDir, 'public/_headers'), 'utf8')).find(
  (rule) => rule.source === '/**',
);
const securityHeaders = Object.fromEntries(
  SECURITY_HEADERS.map((name) => [
    name,
    siteRule?.headers.find(({ key }) => key.toLowerCase() === name)?.value ?? `(${name} missing from public/_headers)`,
  ]),
);

/** The Content-Security-Policy's directives: name -> its sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...sources]) => [name, sources]),
  );
}

/** A built file of a route: each `[param]` segment the first (sorted) that the build wrote there. */
function builtPath(route: string): string {
  let built = '';
  for (const segment of route.split('/').filter(Boolean)) {
    const param = /^\[[^\]]+\](\..+)?$/.exec(segment);
    if (!param) built += `/${segment}`;
    else {
      const suffix = param[1] ?? '';
      const first = readdirSync(join(distDir, built))
        .filter((name) => name.endsWith(suffix))
        .sort()[0];
      if (first === undefined) throw new Error(`The build wrote no file for ${route} in ${built || '/'}`);
      built += `/${first}`;
    }
  }
  return built;
}

/** The pages of src/pages that are not HTML (feeds, the planner's data, the search's near-miss files), by URL. */
const endpoints = readdirSync(join(projectDir, 'src/pages'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => builtPath(`/${file.replace(/\.ts$/, '')}`));

describe("the wiki's security headers (public/_headers, for every path)", () => {
  test('a Content-Security-Policy: nothing from another origin, no inline script or style, no eval, no framing', () => {
    const policy = directives(securityHeaders['content-security-policy'] ?? '');
    expect(policy.get('default-src')).toEqual(["'none'"]);
    // 'wasm-unsafe-eval' compiles the search's WebAssembly; it allows no JavaScript eval.
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'self'"]);
    const sources = [...policy.values()].flat();
    for (const unsafe of ["'unsafe-inline'", "'unsafe-eval'", '*', 'http:', 'https:'])
      expect(sources, unsafe).not.toContain(unsafe);
  });

  test('no sniffing, no path or query in the Referer to other sites, no framing by older browsers', () => {
    expect(securityHeaders['x-content-type-options']).toBe('nosniff');
    expect(securityHeaders['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(securityHeaders['x-frame-options']).toBe('DENY');
  });
});

test('a _headers rule is a path line followed by indented headers; * matches anything', () => {
  const text = '# comment\n/_astro/*\n  Cache-Control: public, max-age=1\n  X-Test: a: b\n\n/other\n  X-Other: 1\n';
  expect(parseHeaderRules(text)).toEqual([
    {
      source: '/_astro/**',
      headers: [
        { key: 'Cache-Control', value: 'public, max-age=1' },
        { key: 'X-Test', value: 'a: b' },
      ],
    },
    { source: '/other', headers: [{ key: 'X-Other', value: '1' }] },
  ]);
});

describe.each(contractRuntimeNames)('%s runtime', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: [TOKEN] });
  });
  afterAll(() => runtime?.close());

  test('content-hashed assets under /_astro/ are cached for a year, immutable', async () => {
    const asset = readdirSync(join(distDir, '_astro'))[0];
    const response = await fetch(`${runtime.url}/_astro/${asset}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
  });

  test('the _headers file itself is not served', async () => {
    expect((await fetch(`${runtime.url}/_headers`)).status).toBe(404);
    expect((await fetch(`${runtime.url}/%5fheaders`)).status).toBe(404);
  });

  test('pages are not marked immutable', async () => {
    const response = await fetch(`${runtime.url}/trees/oak-tree/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control') ?? '').not.toContain('immutable');
  });

  /** The security headers an answer carries, by lower-case name. */
  async function securityHeadersOf(response: Response): Promise<Record<string, string | null>> {
    await response.body?.cancel();
    return Object.fromEntries(SECURITY_HEADERS.map((name) => [name, response.headers.get(name)]));
  }

  test.for(PAGES)('$name ($path) carries the security headers', async ({ path }) => {
    const response = await fetch(`${runtime.url}${path}`);
    expect(await securityHeadersOf(response)).toEqual(securityHeaders);
  });

  test.for([...endpoints, '/pagefind/pagefind-worker.js', '/pagefind/pagefind-ui.css', `/${PUBLISHED_BUNDLES}`])(
    '%s, a file of the wiki, carries the security headers',
    async (path) => {
      const response = await fetch(`${runtime.url}${path}`);
      expect(response.status).toBe(200);
      expect(await securityHeadersOf(response)).toEqual(securityHeaders);
    },
  );

  test("the API, /mcp, /healthz and the bundle downloads keep their own headers: none of the wiki's", async () => {
    const authorization = { Authorization: `Bearer ${TOKEN}` };
    const latest = (await (await fetch(`${runtime.url}/${PUBLISHED_BUNDLES}`)).json()) as Latest;
    const answers = await Promise.all([
      fetch(`${runtime.url}/api/trees`, { headers: authorization }),
      fetch(`${runtime.url}/api/trees`),
      fetch(`${runtime.url}/mcp`, { method: 'POST', body: '{}' }),
      fetch(`${runtime.url}/healthz`),
      ...latest.bundles.map((bundle) => fetch(`${runtime.url}/downloads/${bundle.name}`)),
    ]);
    for (const response of answers) {
      const headers = await securityHeadersOf(response);
      expect(headers['content-security-policy'], response.url).toBeNull();
      expect(headers['referrer-policy'], response.url).toBeNull();
      expect(headers['x-frame-options'], response.url).toBeNull();
    }
  });
});
