// The cards the build writes (src/pages/cards/): one of every record (the first CARDS_PER_KIND
// of each kind), of every kind and of every data release, each a PNG that decodes to 1200x630 and weighs at most
// 100 KB; served in every runtime as a wiki file is, public, with its type and the same caching.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadBuildData } from '../../src/build/build-data.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import {
  CARD_HEIGHT,
  CARD_TYPE,
  CARD_WIDTH,
  CARDS_PER_KIND,
  kindCardPath,
  recordCardPath,
  releaseCardPath,
} from '../../src/contract/cards.ts';
import { kinds } from '../../src/schema/kinds.ts';
import { contractRuntimeNames, distDir, type Runtime, startRuntime } from '../support/runtimes.ts';

/** What a link preview may weigh: Discord, Slack and the others fetch it for every unfurl. */
const MAX_CARD_BYTES = 100 * 1000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const data = loadBuildData(join(projectDir, 'content'));
const expected = [
  ...kinds.flatMap((kind) =>
    data.content.entries[kind.id].map((entry, position) => recordCardPath(kind.id, entry.slug, position)),
  ),
  ...kinds.map((kind) => kindCardPath(kind.id)),
  ...data.releases.map((release) => releaseCardPath(release.id)),
];

/** A PNG's size, after checking its chunks and inflating its pixels (8-bit RGB or RGBA, each row its filter byte). */
function decodePng(bytes: Buffer): { width: number; height: number } {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('no PNG signature');
  let offset = 8;
  let header: { width: number; height: number; channels: number } | undefined;
  const pixels: Buffer[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      const channels = { 2: 3, 6: 4 }[body[9] ?? 0];
      if (body[8] !== 8 || channels === undefined) throw new Error(`IHDR: depth ${body[8]}, colour type ${body[9]}`);
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), channels };
    }
    if (type === 'IDAT') pixels.push(body);
    offset += 12 + length;
  }
  if (!header) throw new Error('no IHDR');
  const raw = inflateSync(Buffer.concat(pixels));
  if (raw.length !== header.height * (1 + header.width * header.channels))
    throw new Error(`${raw.length} bytes of pixels for ${header.width}x${header.height}`);
  return { width: header.width, height: header.height };
}

test('every record (each its own, in the real content), every kind and every data release has a card', () => {
  const written = readdirSync(join(distDir, 'cards'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.png'))
    .map((file) => `/cards/${file}`);
  expect(written.toSorted()).toEqual(expected.toSorted());
  expect(Math.max(...kinds.map((kind) => data.content.entries[kind.id].length))).toBeLessThanOrEqual(CARDS_PER_KIND);
});

test.for(expected)('%s is a PNG of 1200x630 that decodes, within 100 KB', (path) => {
  const bytes = readFileSync(join(distDir, path));
  expect(bytes.length).toBeLessThanOrEqual(MAX_CARD_BYTES);
  expect(decodePng(bytes)).toEqual({ width: CARD_WIDTH, height: CARD_HEIGHT });
});

describe.each(contractRuntimeNames)('in %s', (name) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(name, { tokens: ['cards-test-token'] });
  }, 120_000);
  afterAll(() => runtime?.close());

  test('a card is served without a token, as image/png, cached as the wiki pages are, 304 when unchanged', async () => {
    const path = releaseCardPath(data.releases[0]?.id ?? '');
    const card = await fetch(runtime.url + path);
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe(CARD_TYPE);
    expect(Buffer.from(await card.arrayBuffer()).equals(readFileSync(join(distDir, path)))).toBe(true);
    const page = await fetch(`${runtime.url}/trees/oak-tree/`);
    await page.body?.cancel();
    expect(card.headers.get('cache-control')).toBe(page.headers.get('cache-control'));
    const etag = card.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(runtime.url + path, { headers: { 'If-None-Match': etag ?? '' } });
    expect(again.status).toBe(304);
  });
});
