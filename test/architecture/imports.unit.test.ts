// Imports point one way, as data flows: content -> build (with schema and contract) -> dist ->
// edge (the pure core) -> adapters (server: Node, worker: Workers) -> clients, with the
// Cloudflare tooling (cloudflare: npm run worker and npm run deploy) beside the Node server.
// Each layer of src/ may import only the layers named here; an arrow the wrong way fails with
// its file.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { nodeScripts } from '../support/npm-scripts.ts';

/** Each folder of src/ (a layer), and the layers its files may import besides their own. */
const allowed: Record<string, readonly string[]> = {
  // The data's shapes and rules come first; the API contract is stated in their terms.
  schema: [],
  contract: ['schema'],
  // The command-line helpers on Node: the runner every command explains itself through, the
  // Node check, the project's folder and version. Stated in the schema's and contract's terms.
  cli: ['schema', 'contract'],
  edge: ['schema', 'contract'],
  // The client's own command (treefarm) runs through the same runner; its `treefarm mcp --bundle`
  // serves the MCP app's server over stdio.
  client: ['schema', 'contract', 'cli', 'apps'],
  worker: ['apps', 'edge', 'schema', 'contract'],
  // The server and the build find the project's folder (dist/, content/) where the commands do.
  server: ['apps', 'edge', 'schema', 'contract', 'cli'],
  // The tooling that runs and deploys the Worker (not the Worker: that is worker/) on Node. It
  // reads its settings where every process does and makes up tokens as the Node server does
  // (server/settings.ts, server/local-tokens.ts), and binds what the Worker reads by the
  // contract's names, and checks wrangler.toml's [vars] by the Worker's own rules (worker/settings.ts).
  // Nothing imports it but its own CLIs and tests: no layer lists it.
  cloudflare: ['server', 'worker', 'apps', 'edge', 'schema', 'contract', 'cli'],
  // The build writes each app's part of OpenAPI and docs/configuration.md.
  build: ['apps', 'schema', 'contract', 'cli'],
  // The wiki is rendered by the build: it reads the build's data (virtual:treefarm/build) and types.
  wiki: ['build', 'schema', 'contract'],
  // Pages reach the build's data only through the wiki.
  // The wiki's API page lists the MCP tools.
  pages: ['wiki', 'apps', 'schema', 'contract'],
  // The edge's apps, each in a folder of its own (src/apps/<name>/), and their table: above the
  // edge, whose seam they are mounted on (of the edge, only SEAM below), below the adapters that mount them.
  apps: ['edge', 'schema', 'contract', 'cli'],
};
/** What an app may import of the edge: the seam's types (an app is Web-standard, in any runtime, not the core). */
const SEAM = new Set(['src/edge/apps.ts', 'src/edge/decision.ts']);
/**
 * The MCP app's views (src/apps/mcp/views/): the wiki's planner and record cards in a host's
 * frame, bundled at build time, so the wiki's code is theirs to import, and no other app file's.
 */
const drawsTheWiki = (file: string, target: string) =>
  file.startsWith('src/apps/mcp/views/') && layerOf(target) === 'wiki';
/** Pages that show a document of docs/ (the API page renders docs/api-contract.md): prose, not code. */
const showsDocs = (file: string, target: string) => layerOf(file) === 'pages' && /^docs\/[\w-]+\.md$/.test(target);
/** Files that configure a tool and sit at the top of src/ (Astro's content collections). */
const topLevel: Record<string, readonly string[]> = { 'src/content.config.ts': ['build', 'schema'] };

/** The files npm scripts run: a command line may reach into any layer (npm start builds, then serves). */
function commandLineFiles(): Set<string> {
  return new Set(nodeScripts().flatMap(({ file }) => (file.startsWith('src/') ? [file] : [])));
}

/** The code files git has (or would add) below the folders. */
function trackedFiles(...folders: string[]): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...folders], {
    cwd: projectDir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => /\.(ts|mjs|astro)$/.test(file));
}
const sourceFiles = trackedFiles('src');

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The project-relative paths a file imports (its relative imports only: packages are not layers). */
function importsOf(file: string): string[] {
  const source = readFileSync(join(projectDir, file), 'utf8');
  return Array.from(source.matchAll(IMPORT), (match) => match[1] ?? match[2] ?? '')
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(projectDir, resolve(projectDir, dirname(file), specifier)));
}

const layerOf = (path: string) => (path.startsWith('src/') ? path.split('/')[1] : undefined);

test('the import scan sees the imports of src/', () => {
  expect(sourceFiles.length).toBeGreaterThan(40);
  expect(importsOf('src/edge/answers.ts')).toContain('src/contract/paths.ts');
});

test('every import of src/ points along the layers', () => {
  const commandLines = commandLineFiles();
  const wrongWay: string[] = [];
  for (const file of sourceFiles) {
    if (commandLines.has(file)) continue;
    const own = layerOf(file) ?? '';
    const mayImport = topLevel[file] ?? allowed[own];
    if (!mayImport) {
      wrongWay.push(`${file}: a folder of src/ with no place in the layers`);
      continue;
    }
    for (const target of importsOf(file)) {
      const layer = layerOf(target);
      if (layer === undefined) {
        if (!showsDocs(file, target)) wrongWay.push(`${file} -> ${target}: outside src/`);
      } else if (layer !== own && !mayImport.includes(layer) && !drawsTheWiki(file, target)) {
        wrongWay.push(`${file} -> ${target} (${own} may import only ${mayImport.join(', ')})`);
      } else if (own === 'apps' && layer === 'edge' && !SEAM.has(target)) {
        wrongWay.push(`${file} -> ${target} (an app imports only the edge's seam: ${[...SEAM].join(', ')})`);
      }
    }
  }
  expect(wrongWay).toEqual([]);
});

test('no import of src/, test/ or bench/ resolves outside the repository', () => {
  const files = trackedFiles('src', 'test', 'bench');
  const outside = files.flatMap((file) =>
    importsOf(file)
      .filter((target) => target.startsWith('..'))
      .map((target) => `${file} -> ${target}`),
  );
  expect(files.length).toBeGreaterThan(100);
  expect(outside).toEqual([]);
});

test('no file of the repository names the folder beside it that a clone does not have', () => {
  // The team's shared folder sits beside the checkout here; a user's clone has nothing there.
  const beside = ['..', 'shared'].join('/');
  const found = spawnSync('git', ['grep', '-n', '-F', beside, '--', '.'], { cwd: projectDir, encoding: 'utf8' });
  expect(found.stdout).toBe('');
  expect(found.status).toBe(1);
});

/** The cycles of a graph of imports (each file to what it imports), each as its files, sorted. */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: one of more than one file, or a file importing itself, is a cycle.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) ?? 0, order.get(target) ?? 0));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === file ? undefined : stack.pop()) {
      onStack.delete(member);
      component.push(member);
    }
    if (component.length > 1 || edges.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of edges.keys()) if (!order.has(file)) visit(file);
  return cycles;
}

test('the cycle finder finds each ring of imports, and none in a chain', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
    ['f', ['d']],
  ]);
  expect(cyclesOf(graph)).toEqual([['a', 'b', 'c'], ['e']]);
});

test('no import cycle in src/, type-only or not', () => {
  const files = sourceFiles;
  const known = new Set(files);
  // Every import counts: a type-only one too, and import() (a cycle through it is a cycle to a reader).
  expect(cyclesOf(new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))])))).toEqual(
    [],
  );
});
