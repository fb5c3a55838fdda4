// What `treefarm` prints, run in this process (run()) over the build's offline bundle: a
// command's own help, the economics table's columns, the words of a miss.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { run } from '../../src/client/cli/main.ts';
import { distDir } from '../support/runtimes.ts';

const bundle = join(distDir, 'downloads', bundleFileName(loadContent(join(projectDir, 'content')).version, 'zip'));

async function treefarm(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run({ argv, env: {}, out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('help', () => {
  test("treefarm mcp --help prints the mcp command's own help, not the general one", async () => {
    const { code, out } = await treefarm('mcp', '--help');
    expect(code).toBe(0);
    expect(out).toMatch(/^Usage: treefarm mcp --bundle <file>/);
    expect(out).not.toContain('Commands:');
  });

  test('treefarm --help prints the general help', async () => {
    await expect(treefarm('--help')).resolves.toMatchObject({ code: 0, out: expect.stringContaining('Commands:') });
  });
});

test("the economics table shows each column's numbers with the same decimals, right-aligned", async () => {
  const { code, out } = await treefarm('economics', '--bundle', bundle);
  expect(code).toBe(0);
  const [header = '', rule = '', ...rows] = out.split('\n');
  // Each column's span is its run of dashes under the header.
  for (const { 0: dashes, index = 0 } of rule.matchAll(/-+/g)) {
    const name = header.slice(index, index + dashes.length).trim();
    const cells = rows.map((row) => row.slice(index, index + dashes.length));
    const numbers = cells.filter((cell) => /^ *-?[\d,]+(\.\d+)?$/.test(cell));
    if (numbers.length < rows.length / 2) continue;
    expect(new Set(numbers.map((cell) => cell.split('.')[1]?.length ?? 0)).size, name).toBe(1);
    expect(
      numbers.every((cell) => cell.length === dashes.length),
      name,
    ).toBe(true);
  }
});

test('a miss says what was searched in words that name no IDs (a search takes names and levels)', async () => {
  const { code, err } = await treefarm('trees', 'unicorn', '--bundle', bundle);
  expect(code).toBe(1);
  expect(err).toBe('treefarm: Nothing in trees has the name, earlier name or level "unicorn".');
});
