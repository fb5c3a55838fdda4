// docs/architecture.md cannot drift from the code: every file, folder and exported name it cites
// in backticks exists, and every page it links to is there. A newcomer reads it first, so a
// rename or a move that leaves it behind fails here rather than misleading them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { projectDir } from '../../src/build/site.ts';

const DOC = 'docs/architecture.md';
const doc = readFileSync(join(projectDir, DOC), 'utf8');
/** Every code span of the page, fenced blocks aside (drawings and examples, not citations). */
const spans = Array.from(doc.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g), (match) => match[1] ?? '');

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: projectDir,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const trackedNames = new Set(tracked.map((file) => basename(file)));

/** Folders of the repository a citation may start with; `dist/` is the build's output, not the tree. */
const TREE_ROOTS = /^(src|test|bench|content|releases|docs|public|packages|\.ci)\//;
const SOURCE_FILE = /^[\w.-]+\.(ts|mjs|astro|json|toml|md|css)$/;
/**
 * A name as code spells it, maybe as `Name.member` or `name()`: camelCase (`parseSearch`),
 * PascalCase of two words or more (`EdgeRequest`) or UPPER_SNAKE (`MAX_SHARD_BYTES`). Single
 * words (`search`, `made`, `Authorization`) are the contract's words, not citations of code.
 */
const CODE_NAME = /^([a-z][a-z0-9]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)(\.[\w$]+)?(\(\))?$/;

/** Every name exported by a module of src/, by the TypeScript compiler's reading of it. */
function exportedNames(): Set<string> {
  const names = new Set<string>();
  for (const file of tracked.filter((path) => path.startsWith('src/') && /\.(ts|mts)$/.test(path))) {
    const source = ts.createSourceFile(file, readFileSync(join(projectDir, file), 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      const exported = ts.canHaveModifiers(statement)
        ? ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
        : false;
      if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
        for (const element of statement.exportClause.elements) names.add(element.name.text);
      if (!exported) continue;
      if (ts.isVariableStatement(statement))
        for (const declaration of statement.declarationList.declarations)
          if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
      if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node))
        names.add((statement.name as ts.Identifier).text);
    }
  }
  return names;
}

/**
 * The names the code spells as strings or fields: settings (`variable('API_RATE_LIMIT', ...)`),
 * header names (`'RateLimit'`), the Worker's bindings in wrangler.toml (`binding = "ASSETS"`),
 * fields of the build's files (`nearGroup`).
 */
function quotedNames(): Set<string> {
  const sources = tracked.filter(
    (path) => (path.startsWith('src/') && path.endsWith('.ts') && !path.endsWith('.d.ts')) || path === 'wrangler.toml',
  );
  const text = sources.map((path) => readFileSync(join(projectDir, path), 'utf8')).join('\n');
  return new Set([
    ...Array.from(text.matchAll(/['"]([\w$]+)['"]/g), (match) => match[1] ?? ''),
    // Fields of the build's files (`nearGroup` of a root), as the schemas and types declare them.
    ...Array.from(text.matchAll(/^\s*(?:readonly\s+)?([\w$]+)\??:/gm), (match) => match[1] ?? ''),
  ]);
}

test('the page cites files, folders and names (the checks below have something to check)', () => {
  expect(spans.filter((span) => TREE_ROOTS.test(span)).length).toBeGreaterThan(20);
  expect(spans.filter((span) => CODE_NAME.test(span)).length).toBeGreaterThan(10);
});

/** Whether a cited path is in the tree; `*` and a `<placeholder>` stand for any part of one name. */
function inTree(path: string): boolean {
  if (!/[*<]/.test(path)) return existsSync(join(projectDir, path));
  const escaped = path.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped.replace(/\*/g, '[^/]*').replace(/<[^>]+>/g, '[^/]+')}$`);
  return tracked.some((file) => pattern.test(file));
}

test('every path it cites is in the tree (a pattern such as `releases/<id>.json` matches a file)', () => {
  const paths = spans.filter((span) => TREE_ROOTS.test(span)).map((span) => span.replace(/[:#].*$/, ''));
  expect(paths.filter((path) => !inTree(path))).toEqual([]);
});

test('every file it names alone (`rate-ipc.ts`) is a file of the tree', () => {
  const files = spans.filter((span) => SOURCE_FILE.test(span));
  expect(files.filter((file) => !trackedNames.has(file))).toEqual([]);
});

test('every code name it cites is exported by src/ or quoted there (a setting, header, binding)', () => {
  const exported = exportedNames();
  const quoted = quotedNames();
  const names = spans.filter((span) => CODE_NAME.test(span)).map((span) => CODE_NAME.exec(span)?.[1] ?? span);
  expect(names.filter((name) => !exported.has(name) && !quoted.has(name))).toEqual([]);
});

test('every page it links to exists', () => {
  const links = Array.from(doc.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g), (match) => match[1] ?? '').filter(
    (target) => !/^[a-z]+:/.test(target),
  );
  expect(links.filter((target) => !existsSync(join(projectDir, 'docs', target)))).toEqual([]);
});
