// docs/configuration.md is the one table of every environment variable: it is what
// `npm run docs:configuration` makes from the settings' own definitions, and every variable the
// code of src/ reads (a `variable('NAME', ...)`, `process.env.NAME`, `env['NAME']`) has its row.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { CONFIGURATION_DOC, configurationPage } from '../../src/build/configuration-cli.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { INDEX_VARIABLE, INVOCATIONS_VARIABLE } from '../../src/contract/bucket-layout.ts';
import { RATE_LIMIT_VARIABLE } from '../../src/schema/environment.ts';

const page = readFileSync(join(projectDir, CONFIGURATION_DOC), 'utf8');
const listed = new Set(Array.from(page.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm), (match) => match[1] ?? ''));

/** The variables src/ reads, by how the code spells a read; the constants stand for their names. */
function variablesRead(): Set<string> {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], {
    cwd: projectDir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  const text = files.map((file) => readFileSync(join(projectDir, file), 'utf8')).join('\n');
  const constants: Record<string, string> = { INDEX_VARIABLE, INVOCATIONS_VARIABLE, RATE_LIMIT_VARIABLE };
  return new Set([
    ...Array.from(text.matchAll(/\bvariable\(\s*'([A-Z][A-Z0-9_]*)'/g), (match) => match[1] ?? ''),
    ...Array.from(text.matchAll(/\bvariable\(\s*([A-Z][A-Z0-9_]*)\b/g), (match) => constants[match[1] ?? ''] ?? ''),
    // Reads only: an assignment (`process.env.X = ...`) sets a variable for a library, it reads none.
    ...Array.from(text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)\b(?!\s*=[^=])/g), (match) => match[1] ?? ''),
    ...Array.from(text.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g), (match) => match[1] ?? ''),
  ]);
}

test('the page is what npm run docs:configuration makes from the definitions now', () => {
  expect(page).toBe(configurationPage());
});

test('every variable src/ reads has its row', () => {
  const read = variablesRead();
  expect(read.size).toBeGreaterThan(10);
  expect([...read].filter((name) => name !== '' && !listed.has(name))).toEqual([]);
});

test('every row names a variable src/ reads', () => {
  const read = variablesRead();
  expect([...listed].filter((name) => !read.has(name))).toEqual([]);
});
