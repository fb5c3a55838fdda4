// The docs cannot drift from the code: every file, folder and exported name a page cites in
// backticks exists, every npm script it runs is in package.json, every environment variable it
// names is one the code reads, and every page and heading it links to is there. A rename or a
// move that leaves a page behind fails here rather than misleading its reader.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

/** The pages a reader reads: the front door, the guides beside it, docs/, the client package's. */
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'TESTING.md',
  'BENCHMARKS.md',
  ...readdirSync(join(projectDir, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'packages/client/README.md',
  'packages/client/CHANGELOG.md',
];

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: projectDir,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const trackedNames = new Set(tracked.map((file) => basename(file)));
const textOf = (path: string) => readFileSync(join(projectDir, path), 'utf8');

/** Folders of the repository a citation may start with; `dist/` is the build's output, not the tree. */
const TREE_ROOTS = /^(src|test|bench|content|releases|docs|public|packages|deploy|\.ci)\//;
const SOURCE_FILE = /^[\w.-]+\.(ts|mjs|astro|toml|css)$/;
/**
 * A name as code spells it, maybe as `Name.member` or `name()`: camelCase (`parseSearch`),
 * PascalCase of two words or more (`EdgeRequest`) or UPPER_SNAKE (`MAX_SHARD_BYTES`). Single
 * words (`search`, `made`, `Authorization`) are the contract's words, not citations of code.
 */
const CODE_NAME = /^([a-z][a-z0-9]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)(\.[\w$]+)?(\(\))?$/;
/** An environment variable set on a command line or in a span: `API_RATE_LIMIT=100/60s npm start`. */
const ASSIGNED_VARIABLE = /(?:^|[\s`(])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST|WORKERS|BODIES|CI)=/gm;

/**
 * Every word the code spells: names declared or used in src/, test/ and bench/, the configuration
 * files at the top, wrangler.toml's bindings, .ci/run's variables and the Dockerfile's build
 * arguments. A name a page cites that occurs nowhere in the code is a name the code no longer has.
 */
function codeWords(): Set<string> {
  const sources = tracked.filter(
    (path) =>
      (/^(src|test|bench|packages)\//.test(path) && /\.(ts|mjs|astro)$/.test(path) && !path.endsWith('.d.ts')) ||
      /^[\w.-]+\.(mjs|ts|json|toml)$/.test(path) ||
      path === '.ci/run' ||
      path === 'Dockerfile',
  );
  const text = sources.map(textOf).join('\n');
  return new Set(Array.from(text.matchAll(/[A-Za-z_$][\w$]*/g), (match) => match[0]));
}

/** The words of the files of installed packages a page cites (`node_modules/miniflare/…/entry.worker.js`). */
function citedPackageWords(spans: readonly string[]): Set<string> {
  const files = spans.filter(
    (span) =>
      span.startsWith('node_modules/') &&
      existsSync(join(projectDir, span)) &&
      statSync(join(projectDir, span)).isFile(),
  );
  return new Set(files.flatMap((file) => Array.from(textOf(file).matchAll(/[A-Za-z_$][\w$]*/g), (match) => match[0])));
}

const words = codeWords();
const isKnownName = (name: string, cited: Set<string>) => words.has(name) || cited.has(name) || name in globalThis;
const { scripts } = JSON.parse(textOf('package.json')) as { scripts: Record<string, string> };

/** Whether a cited path is in the tree; `*` and a `<placeholder>` stand for any part of one name. */
function inTree(path: string): boolean {
  if (!/[*<]/.test(path)) return existsSync(join(projectDir, path));
  const escaped = path.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped.replace(/\*/g, '[^/]*').replace(/<[^>]+>/g, '[^/]+')}$`);
  return tracked.some((file) => pattern.test(file));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(page: string): Set<string> {
  const withoutCode = textOf(page).replace(/^```[\s\S]*?^```$/gm, '');
  return new Set(Array.from(withoutCode.matchAll(/^#{1,6}\s+(.+)$/gm), (match) => anchorOf(match[1] ?? '')));
}

describe.each(PAGES)('%s', (page) => {
  const text = textOf(page);
  const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
  /** Every code span outside fenced blocks (drawings and examples, not citations). */
  const spans = Array.from(prose.matchAll(/`([^`\n]+)`/g), (match) => match[1] ?? '');

  test('every path it cites is in the tree (a pattern such as `releases/<id>.json` matches a file)', () => {
    const paths = spans.filter((span) => TREE_ROOTS.test(span)).map((span) => span.replace(/[:#].*$|\s.*$/, ''));
    expect(paths.filter((path) => !inTree(path))).toEqual([]);
  });

  test('every source file it names alone (`rate-ipc.ts`) is a file of the tree', () => {
    const files = spans.filter((span) => SOURCE_FILE.test(span));
    expect(files.filter((file) => !trackedNames.has(file))).toEqual([]);
  });

  test('every code name it cites occurs in the code (a function, constant, setting, header, binding)', () => {
    const cited = citedPackageWords(spans);
    const names = spans.filter((span) => CODE_NAME.test(span)).map((span) => CODE_NAME.exec(span)?.[1] ?? span);
    expect(names.filter((name) => !isKnownName(name, cited))).toEqual([]);
  });

  test('every environment variable it sets is one the code reads', () => {
    const names = Array.from(text.matchAll(ASSIGNED_VARIABLE), (match) => match[1] ?? '');
    expect(names.filter((name) => !words.has(name))).toEqual([]);
  });

  test('every npm script it runs is in package.json', () => {
    const runs = Array.from(text.matchAll(/npm run ([\w:-]+)/g), (match) => match[1] ?? '');
    expect(runs.filter((name) => !(name in scripts))).toEqual([]);
  });

  test('every page and heading it links to exists', () => {
    const links = Array.from(prose.matchAll(/\]\(([^)\s]+)\)/g), (match) => match[1] ?? '').filter(
      (target) => !/^[a-z]+:/.test(target),
    );
    const broken = links.filter((link) => {
      const [file = '', anchor] = link.split('#');
      const target = file === '' ? page : normalize(join(dirname(page), file));
      if (!existsSync(join(projectDir, target))) return true;
      return anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});

test('docs/architecture.md cites files, folders and names (the checks have something to check)', () => {
  const spans = Array.from(textOf('docs/architecture.md').matchAll(/`([^`\n]+)`/g), (match) => match[1] ?? '');
  expect(spans.filter((span) => TREE_ROOTS.test(span)).length).toBeGreaterThan(20);
  expect(spans.filter((span) => CODE_NAME.test(span)).length).toBeGreaterThan(10);
});

// BENCHMARKS.md is a results page (CONTRIBUTING.md, "Where the docs live"): per bench what, the command,
// the latest figures and the goal; how each figure came to be stays in git.
test('BENCHMARKS.md is at most 400 lines', () => {
  expect(textOf('BENCHMARKS.md').trimEnd().split('\n').length).toBeLessThanOrEqual(400);
});
