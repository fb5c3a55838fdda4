// The static site's header rules: one _headers file, the same headers from both runtimes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseHeaderRules } from '../../src/server/static-site.ts';
import { distDir, runtimeNames, startRuntime, type Runtime } from '../support/runtimes.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

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

describe.each(runtimeNames)('%s runtime', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: ['static-headers-token'] });
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
});
