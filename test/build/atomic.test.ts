// `npm run build` swaps its output in whole: a build that fails, throws or is killed midway
// leaves the previous output exactly as it was, and the next build clears what it left.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { replaceAtomically } from '../../src/build/atomic.ts';
import { killBuildMidway } from '../fixtures/killed-build.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

let parent: string;
let target: string;
beforeEach(() => {
  parent = temporaryFolder('treefarm-atomic-');
  target = join(parent, 'dist');
  mkdirSync(target);
  writeFileSync(join(target, 'previous.json'), 'previous build');
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

const previousIsIntact = () =>
  readdirSync(target).length === 1 && readFileSync(join(target, 'previous.json'), 'utf8') === 'previous build';

test('a completed build replaces the previous output whole', async () => {
  await replaceAtomically(target, (staging) => writeFileSync(join(staging, 'next.json'), 'next build'));
  expect(readdirSync(target)).toEqual(['next.json']);
  expect(readdirSync(parent)).toEqual(['dist']);
});

test('a build that throws midway leaves the previous output intact and no staging folder', async () => {
  const failing = replaceAtomically(target, (staging) => {
    writeFileSync(join(staging, 'half.json'), 'half a build');
    throw new Error('content error');
  });
  await expect(failing).rejects.toThrow('content error');
  expect(previousIsIntact()).toBe(true);
  expect(readdirSync(parent)).toEqual(['dist']);
});

test('a build that fails asynchronously midway leaves the previous output intact and no staging folder', async () => {
  const failing = replaceAtomically(target, async (staging) => {
    writeFileSync(join(staging, 'half.json'), 'half a build');
    await new Promise((resolve) => setImmediate(resolve));
    throw new Error('astro failed');
  });
  await expect(failing).rejects.toThrow('astro failed');
  expect(previousIsIntact()).toBe(true);
  expect(readdirSync(parent)).toEqual(['dist']);
});

test('a first build that fails leaves no output at all', async () => {
  rmSync(target, { recursive: true });
  await expect(replaceAtomically(target, () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
  expect(readdirSync(parent)).toEqual([]);
});

test('a killed build leaves the previous output; the next build removes its staging folder and lock', async () => {
  await killBuildMidway(target, "fs.writeFileSync(staging + '/half.json', 'half a build');");
  expect(previousIsIntact()).toBe(true);
  const leftovers = readdirSync(parent)
    .filter((entry) => entry !== 'dist')
    .sort();
  expect(leftovers).toHaveLength(2);
  expect(leftovers[0]).toBe('.dist.lock');
  expect(leftovers[1]).toMatch(/^\.staging-dist-/);

  await replaceAtomically(target, (staging) => writeFileSync(join(staging, 'next.json'), 'next build'));
  expect(readdirSync(parent)).toEqual(['dist']);
  expect(readdirSync(target)).toEqual(['next.json']);
});

test('the next build removes an output retired by a build killed between its two renames', async () => {
  const retired = join(parent, '.retired-dist-12345');
  mkdirSync(retired);
  await replaceAtomically(target, (staging) => writeFileSync(join(staging, 'next.json'), 'next build'));
  expect(existsSync(retired)).toBe(false);
});

test('leftovers of another output in the same folder are not touched', async () => {
  const other = join(parent, '.staging-site-abc123');
  mkdirSync(other);
  await replaceAtomically(target, (staging) => writeFileSync(join(staging, 'next.json'), 'next build'));
  expect(existsSync(other)).toBe(true);
});

test('a second build waits for the first instead of sweeping up its staging folder', async () => {
  let releaseFirst = () => {};
  let firstStarted = () => {};
  const firstHasLock = new Promise<void>((resolve) => (firstStarted = resolve));
  const first = replaceAtomically(target, (staging) => {
    writeFileSync(join(staging, 'first.json'), 'first build');
    firstStarted();
    return new Promise<void>((resolve) => (releaseFirst = resolve));
  });
  await firstHasLock;
  let secondWaits = () => {};
  const secondFoundLock = new Promise<void>((resolve) => (secondWaits = resolve));
  const second = replaceAtomically(target, (staging) => writeFileSync(join(staging, 'second.json'), 'second build'), {
    onLockHeld: () => secondWaits(),
  });
  await secondFoundLock;
  expect(readdirSync(parent).some((entry) => entry.startsWith('.staging-dist-'))).toBe(true);
  releaseFirst();
  await Promise.all([first, second]);
  expect(readdirSync(target)).toEqual(['second.json']);
  expect(readdirSync(parent)).toEqual(['dist']);
});
