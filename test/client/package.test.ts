// The published package, as a plain-JavaScript project gets it from the packed tarball: the
// online client in Node 20 and 24, in a browser and in workerd against the local server; the
// offline client over a bundle of dist/downloads; its types; and its size.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { startWorker } from '../../src/cloudflare/worker-dev.ts';
import { CLIENT_SIZE_LIMIT, measureOnlineClient } from '../../packages/client/scripts/size.ts';
import { installedClient, type InstalledClient, whilePackingAlone } from '../support/packed-client.ts';
import { distDir, freePort, startRuntime, type Runtime } from '../support/runtimes.ts';
import { launchBrowser, skipBrowserTests } from '../support/browser.ts';

const runFile = promisify(execFile);
const TOKEN = 'package-test-token';
const version = loadContent(join(projectDir, 'content')).version;
const bundlePath = (format: 'tar.gz' | 'zip') => join(distDir, 'downloads', bundleFileName(version, format));

/** The Node 20 of the system (the oldest the package supports), if there is one. */
function systemNode20(): string | undefined {
  for (const path of [process.env['NODE20_PATH'], '/usr/bin/node', '/usr/local/bin/node']) {
    if (!path || !existsSync(path)) continue;
    if (execFileSync(path, ['--version'], { encoding: 'utf8' }).startsWith('v20.')) return path;
  }
  return undefined;
}
const node20 = systemNode20();
if (!node20) console.warn('No Node 20 (/usr/bin/node or NODE20_PATH): the package is tried in Node 24 only.');
const nodes = [
  { label: 'Node 24 (the project’s)', path: process.execPath },
  { label: 'Node 20 (the system’s)', path: node20 },
];

let client: InstalledClient;
let runtime: Runtime;
beforeAll(async () => {
  [client, runtime] = await Promise.all([installedClient(), startRuntime('node', { tokens: [TOKEN] })]);
  writeFileSync(join(client.project, 'online.mjs'), ONLINE_SCRIPT);
  writeFileSync(join(client.project, 'offline.mjs'), OFFLINE_SCRIPT);
});
afterAll(() => runtime?.close());

const ONLINE_SCRIPT = `import { createClient, ApiError, NotFoundError } from 'treefarm-data-client';
const api = createClient({ baseUrl: process.env.TREEFARM_URL, token: process.env.TREEFARM_TOKEN });
const trees = await api.trees('oak tree');
const missing = await api.cutters('unicorn').catch((error) => error);
console.log(JSON.stringify({
  trees: trees.map((tree) => tree.name),
  plots: (await api.plots(3)).map((plot) => plot.level),
  missing: [missing.name, missing.status, missing instanceof NotFoundError, missing instanceof ApiError],
}));
`;

const OFFLINE_SCRIPT = `import { openBundle } from 'treefarm-data-client/offline';
import { NotFoundError } from 'treefarm-data-client';
const data = await openBundle(process.argv[2]);
const missing = await data.trees('unicorn').catch((error) => error);
console.log(JSON.stringify({
  version: data.version,
  cutters: (await data.cutters('bread knife')).map((cutter) => cutter.name),
  missing: missing instanceof NotFoundError,
}));
`;

async function runScript(node: string, script: string, ...args: string[]): Promise<unknown> {
  const { stdout } = await runFile(node, [script, ...args], {
    cwd: client.project,
    env: { ...process.env, TREEFARM_URL: runtime.url, TREEFARM_TOKEN: TOKEN },
  });
  return JSON.parse(stdout) as unknown;
}

describe('the tarball', () => {
  test('holds the built JavaScript, its .d.ts, the README and package.json, and no TypeScript source', () => {
    expect(client.files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/cli.js']));
    expect(client.files).toEqual(expect.arrayContaining(['dist/index.d.ts', 'dist/offline.js', 'dist/offline.d.ts']));
    expect(client.files).toEqual(expect.arrayContaining(['dist/economics.js', 'dist/economics.d.ts']));
    const source = client.files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
    expect(source).toEqual([]);
  });

  test("holds the LICENSE (the repository's own) and the CHANGELOG", () => {
    expect(client.files).toEqual(expect.arrayContaining(['LICENSE', 'CHANGELOG.md']));
    expect(readFileSync(join(client.packageDir, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(projectDir, 'LICENSE'), 'utf8'),
    );
  });

  test("its package.json names the repository (the package's folder in it), a homepage and where bugs go", () => {
    const manifest = JSON.parse(readFileSync(join(client.packageDir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({
      repository: {
        type: 'git',
        url: expect.stringMatching(/^git\+https:\/\/\S+\.git$/),
        directory: 'packages/client',
      },
      homepage: expect.stringMatching(/^https:\/\/\S+#readme$/),
      bugs: { url: expect.stringMatching(/^https:\/\/\S+\/issues$/) },
    });
  });

  test('npm run client:pack packs into a folder git ignores, leaving nothing in the root', async () => {
    const untracked = () =>
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: projectDir, encoding: 'utf8' });
    await whilePackingAlone(async () => {
      const before = untracked();
      const { stdout } = await runFile('npm', ['run', '--silent', 'client:pack'], { cwd: projectDir });
      const tarball = join(projectDir, 'packages', 'client', 'packed', stdout.trim().split('\n').at(-1) ?? '');
      expect(existsSync(tarball)).toBe(true);
      expect(untracked()).toBe(before);
    });
  }, 180_000);

  test('the installed project has no TypeScript at all', () => {
    expect(existsSync(join(client.project, 'node_modules', 'typescript'))).toBe(false);
  });

  test('the type declarations need no schema library', () => {
    for (const file of client.files.filter((name) => name.endsWith('.d.ts'))) {
      expect({ file, zod: readFileSync(join(client.packageDir, file), 'utf8').includes('zod') }).toEqual({
        file,
        zod: false,
      });
    }
  });
});

describe.each(nodes)('in $label', ({ path }) => {
  test.skipIf(path === undefined)('the online client queries the local server', async () => {
    expect(await runScript(path ?? '', 'online.mjs')).toEqual({
      trees: ['Oak Tree'],
      plots: [3],
      missing: ['NotFoundError', 404, true, true],
    });
  });

  test.skipIf(path === undefined)('the treefarm bin answers from the local server', async () => {
    const bin = join(client.packageDir, 'dist', 'cli.js');
    expect(await runScript(path ?? '', bin, 'cutters', 'bread knife', '--json')).toMatchObject([{ name: 'Knife' }]);
  });

  test.skipIf(path === undefined).each(['tar.gz', 'zip'] as const)(
    'the offline client answers from the %s bundle, its errors the same classes as online',
    async (format) => {
      expect(await runScript(path ?? '', 'offline.mjs', bundlePath(format))).toEqual({
        version,
        cutters: ['Knife'],
        missing: true,
      });
    },
  );
});

test('a TypeScript user gets the record and economics types through the exports map', async () => {
  const file = join(client.project, 'typed.ts');
  writeFileSync(
    file,
    `import { createClient, type Tree } from 'treefarm-data-client';
import { openBundle, type BundleClient } from 'treefarm-data-client/offline';
import { economics, profitPerHour, type TreeEconomics } from 'treefarm-data-client/economics';
const trees: Tree[] = await createClient({ baseUrl: 'http://127.0.0.1:4321', token: 't' }).trees('oak');
const bundle: BundleClient = await openBundle('bundle.zip');
const growth: number = trees[0]?.growthTime ?? (await bundle.trees())[0]?.growthTime ?? 0;
// @ts-expect-error: a tree has no field "price"
trees[0]?.price;
const rows: TreeEconomics[] = await economics(bundle, { plot: 3 });
const payback: number | null = rows[0]?.upgradePaybackHours ?? null;
const perHour: number = profitPerHour(trees[0]!, 104);
// @ts-expect-error: the plot is a level, a number
await economics(bundle, { plot: 'fast' });
export { growth, payback, perHour };
`,
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const options = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'false'];
  await expect(runFile(process.execPath, [tsc, ...options, file], { cwd: client.project })).resolves.toBeDefined();
}, 120_000);

test(`the online client is under ${CLIENT_SIZE_LIMIT / 1024} KB minified + gzip and has no imports`, async () => {
  const size = await measureOnlineClient(new URL(`file://${join(client.packageDir, 'dist', 'index.js')}`));
  expect(size.imports).toEqual([]);
  expect(size.gzipped).toBeLessThan(CLIENT_SIZE_LIMIT);
});

describe.skipIf(skipBrowserTests())('in a browser', () => {
  let files: Server;
  beforeAll(async () => {
    files = await serveFolder(join(client.packageDir, 'dist'));
  });
  afterAll(() => new Promise<void>((resolve) => files.close(() => resolve())));

  test('a page imports the online client and queries the API across origins, cache included', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/api/trees')) statuses.push(response.status());
      });
      await page.goto(`${origin(files)}/`);
      const names = await page.evaluate(`(async () => {
        const { createClient } = await import('/index.js');
        const api = createClient({ baseUrl: ${JSON.stringify(runtime.url)}, token: ${JSON.stringify(TOKEN)} });
        const first = await api.trees('oak tree');
        const again = await api.trees('oak tree');
        return [...first, ...again].map((tree) => tree.name);
      })()`);
      expect(names).toEqual(['Oak Tree', 'Oak Tree']);
      expect(statuses).toEqual([200, 304]);
    } finally {
      await browser.close();
    }
  });
});

test('in workerd, a Worker bundling the online client queries the API (no nodejs_compat)', async () => {
  const folder = join(client.project, 'worker');
  execFileSync('mkdir', ['-p', folder]);
  writeFileSync(
    join(folder, 'wrangler.toml'),
    'name = "client-in-workerd"\nmain = "worker.js"\ncompatibility_date = "2026-04-01"\n',
  );
  writeFileSync(
    join(folder, 'worker.js'),
    `import { createClient, NotFoundError } from 'treefarm-data-client';
export default {
  async fetch(request, env) {
    const api = createClient({ baseUrl: env.API_URL, token: env.API_TOKEN });
    const trees = await api.trees('oak tree');
    const missing = await api.cutters('unicorn').catch((error) => error instanceof NotFoundError);
    return Response.json({ trees: trees.map((tree) => tree.name), missing });
  },
};
`,
  );
  const worker = await startWorker({
    port: await freePort(),
    cwd: folder,
    vars: { API_URL: runtime.url, API_TOKEN: TOKEN },
  });
  try {
    const response = await fetch(`${worker.url}/`);
    expect(await response.json()).toEqual({ trees: ['Oak Tree'], missing: true });
  } finally {
    await worker.close();
  }
}, 120_000);

const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** A static file server for one folder; "/" is an empty page. */
async function serveFolder(folder: string): Promise<Server> {
  const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.html': 'text/html' };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/') return void response.writeHead(200, { 'Content-Type': types['.html'] }).end('<!doctype html>');
    const file = join(folder, path);
    if (!file.startsWith(folder) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
