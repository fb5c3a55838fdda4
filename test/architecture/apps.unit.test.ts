// Each app lives in its folder (src/apps/<name>/) and is listed once, in the table of mounts
// (src/apps/mounts.ts): no file elsewhere in src/ names an app's path or its name (as a string or
// a key: what is said of each app, such as its statuses, is said in its mount), or reaches into
// its folder but through a module the app publishes, each listed below with the reason it is used.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { MOUNTS } from '../../src/apps/mounts.ts';
import { projectDir } from '../../src/cli/project-dir.ts';

const TABLE = 'src/apps/mounts.ts';

/** The modules an app publishes to the rest of src/, and why; every other file of its folder is its own. */
const PUBLISHED: Record<string, string> = {
  'src/apps/mcp/tools.ts': "the MCP tools: the Discord app answers with them, the wiki's API page lists them",
  'src/apps/mcp/server.ts': "the MCP server: the offline client's `treefarm mcp --bundle` serves it over stdio",
  'src/apps/mcp/messages.ts':
    'what a message to the MCP server must be: `treefarm mcp --bundle` reads each stdin line by it',
  'src/apps/mcp/bounds.ts': "/mcp's path and bounds: the wiki's API page states them",
  'src/apps/mcp/openapi.ts': "/mcp's part of the OpenAPI document, which the build writes",
  'src/apps/mcp/views.ts': "the MCP Apps views' names and routes: the build stores each view's page under its route",
  'src/apps/mcp/build/view-pages.ts':
    "the MCP Apps views' pages, each bundled into one HTML page, which the build stores",
  'src/apps/discord/cli/settings.ts': "`npm run discord:register`'s variables, which docs/configuration.md lists",
};

/** The files outside the apps that say an app's name for a reason of their own (not the app's), and why. */
const NAMED_ELSEWHERE: Record<string, string> = {
  'src/client/cli/args.ts': "`treefarm mcp`: the offline client's command, which serves the MCP server over stdio",
  'src/client/cli/main.ts': "`treefarm mcp`: the offline client's command, which serves the MCP server over stdio",
  'src/pages/docs/api.astro': "the API page's section on /mcp (its anchor) and the `treefarm mcp` command line",
};

/** An app's name as a string (`'mcp'`) or as a key (`mcp: …`, at a line's start or after `{` or `,`). */
const nameOf = (name: string) => new RegExp(`(['"\`])${name}\\1|(^|[{,])\\s*${name}\\??\\s*:\\s`, 'm');

const sourceFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], {
  cwd: projectDir,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => /\.(ts|mjs|astro)$/.test(file) && !file.endsWith('.d.ts'));

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const importsOf = (file: string, source: string): string[] =>
  Array.from(source.matchAll(IMPORT), (match) => match[1] ?? match[2] ?? '')
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(projectDir, resolve(projectDir, dirname(file), specifier)));

test('every app of the table has its folder, with its mount', () => {
  for (const { name } of MOUNTS) expect(sourceFiles).toContain(`src/apps/${name}/mount.ts`);
  const folders = new Set(sourceFiles.flatMap((file) => /^src\/apps\/([^/]+)\//.exec(file)?.[1] ?? []));
  expect([...folders].sort()).toEqual(MOUNTS.map(({ name }) => name).sort());
});

test('every file that names an app lives in its folder or is the table', () => {
  const strays: string[] = [];
  for (const file of sourceFiles) {
    if (file === TABLE) continue;
    const source = readFileSync(join(projectDir, file), 'utf8');
    for (const { name, path } of MOUNTS) {
      const folder = `src/apps/${name}/`;
      if (file.startsWith(folder)) continue;
      if (new RegExp(`['"\`]${path}['"\`/]`).test(source)) strays.push(`${file}: names ${path}`);
      if (!(file in NAMED_ELSEWHERE) && nameOf(name).test(source)) strays.push(`${file}: names the app ${name}`);
      for (const target of importsOf(file, source))
        if (target.startsWith(folder) && !(target in PUBLISHED)) strays.push(`${file} -> ${target}`);
    }
  }
  expect(strays).toEqual([]);
});

test('every module an app publishes is in use outside its folder', () => {
  const used = new Set(
    sourceFiles.flatMap((file) => {
      const inApp = /^src\/apps\/[^/]+\//.exec(file)?.[0];
      return importsOf(file, readFileSync(join(projectDir, file), 'utf8')).filter(
        (target) => inApp === undefined || !target.startsWith(inApp),
      );
    }),
  );
  expect(Object.keys(PUBLISHED).filter((module) => !used.has(module))).toEqual([]);
});

test('every file allowed to name an app does so', () => {
  const naming = Object.keys(NAMED_ELSEWHERE).filter((file) => {
    const source = readFileSync(join(projectDir, file), 'utf8');
    return MOUNTS.some(({ name }) => nameOf(name).test(source));
  });
  expect(naming).toEqual(Object.keys(NAMED_ELSEWHERE));
});
