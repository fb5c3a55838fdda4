// A build whose card cannot be made fails, naming the card's record and why, and leaves no
// output folder behind: no half-written card, no build without its cards.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { buildInChild } from '../support/child-build.ts';
import { temporaryFolders } from '../support/temporary-folders.ts';

const folder = temporaryFolders();

/** What a build says of a card it could not make: its record (kind/slug) or release, its path, then why. */
const CARD_NAMED = String.raw`The card of (?:[a-z]+/[a-z0-9-]+|release [\w-]+) \(/cards/[\w/-]+\.png\)`;
const CARD_FAILURE = new RegExp(`${CARD_NAMED} could not be made: EEXIST: file already exists, mkdir`);

test('a card that cannot be made fails the build, naming its record (kind and slug) and the reason', async () => {
  const workDir = folder('card-failure-');
  // A cache "folder" that is a file: a card renders, then cannot be kept.
  const notAFolder = join(workDir, 'card-cache');
  writeFileSync(notAFolder, '');
  const outDir = join(workDir, 'dist');
  const { status, output } = await buildInChild(outDir, { CARD_CACHE_DIR: notAFolder });
  expect(status).not.toBe(0);
  expect(output).toMatch(CARD_FAILURE);
  expect(existsSync(outDir)).toBe(false);
}, 300_000);
