// How the wiki's paths resolve, the same in every runtime (src/contract/site-paths.ts on the Node
// server; Workers static assets' auto-trailing-slash in the Worker): a page at its folder's path
// with a trailing slash, every other spelling of it a 307 there (the query kept), each answer
// with the wiki's security headers (issue 55, finding 5: Node answered 200 to some spellings and
// serve-handler's 301s to others, without the headers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { parseHeaderRules } from '../../src/server/static-site.ts';
import { runtimeNames, startRuntime, type Runtime } from '../support/runtimes.ts';

/** Each spelling, and what every runtime answers: a status, and for a 307 its Location. */
const SPELLINGS: { path: string; status: number; location?: string }[] = [
  { path: '/', status: 200 },
  { path: '/index.html', status: 307, location: '/' },
  { path: '/index', status: 307, location: '/' },
  { path: '/trees/oak-tree/', status: 200 },
  { path: '/trees/oak-tree/?x=1', status: 200 },
  { path: '/trees/oak-tree', status: 307, location: '/trees/oak-tree/' },
  { path: '/trees/oak-tree?x=1', status: 307, location: '/trees/oak-tree/?x=1' },
  { path: '/trees//oak-tree/', status: 307, location: '/trees/oak-tree/' },
  { path: '//trees/oak-tree/', status: 307, location: '/trees/oak-tree/' },
  { path: '/trees/oak-tree//', status: 307, location: '/trees/oak-tree/' },
  { path: '/trees/oak-tree/index', status: 307, location: '/trees/oak-tree/' },
  { path: '/trees/oak-tree/index.html', status: 307, location: '/trees/oak-tree/' },
  { path: '/trees/oak-tree/index.html?x=1', status: 307, location: '/trees/oak-tree/?x=1' },
  { path: '/trees/%6fak-tree/', status: 307, location: '/trees/oak-tree/' },
  { path: '/trees/oak-tree/.', status: 200 },
  { path: '/trees', status: 307, location: '/trees/' },
  { path: '/trees/index.html', status: 307, location: '/trees/' },
  { path: '/docs/api', status: 307, location: '/docs/api/' },
  { path: '/404.html', status: 307, location: '/404' },
  { path: '/404', status: 200 },
  { path: '/robots.txt', status: 200 },
  { path: '/robots.txt/', status: 404 },
  { path: '/trees/OAK-TREE/', status: 404 },
  { path: '/trees/no-such-tree', status: 404 },
];

/** The headers public/_headers gives every path ("/*"), by lower-case name. */
const everyPath = Object.fromEntries(
  (
    parseHeaderRules(readFileSync(join(projectDir, 'public/_headers'), 'utf8')).find((rule) => rule.source === '/**')
      ?.headers ?? []
  ).map(({ key, value }) => [key.toLowerCase(), value]),
);

describe.each(runtimeNames)('%s runtime', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: ['site-paths-token'] });
  }, 120_000);
  afterAll(() => runtime?.close());

  test.for(SPELLINGS)('$path: $status $location', async ({ path, status, location }) => {
    const response = await fetch(runtime.url + path, { redirect: 'manual' });
    await response.body?.cancel();
    expect(response.status).toBe(status);
    expect(response.headers.get('location')).toBe(location ?? null);
    expect(Object.keys(everyPath)).toContain('content-security-policy');
    for (const [header, value] of Object.entries(everyPath)) expect(response.headers.get(header), header).toBe(value);
  });
});
