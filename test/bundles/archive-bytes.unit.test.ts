// The bundle's large files are written piece by piece rather than whole (src/build/bundles.ts):
// the bytes are the same as the whole-string and whole-archive way gives, so an archive's digest
// does not depend on how it was written.
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { packTarGz, utf8Lines } from '../../src/build/bundles.ts';

const LINES = ['{"a":1}', '', '{"name":"Café Ünïcode"}', '{"emoji":"🌳 tree"}', 'x'.repeat(70_000)];

test('the bodies file is the lines joined by line breaks, one after the last, in UTF-8', () => {
  expect(utf8Lines(LINES)).toEqual(new TextEncoder().encode(`${LINES.join('\n')}\n`));
  expect(utf8Lines([])).toEqual(new Uint8Array(0));
});

test('the tar.gz, compressed as the tar is written, is gzip level 9 of the whole tar', async () => {
  // Large and varied enough that deflate gets its input in many pieces and writes many blocks.
  const noise = (seed: number, size: number) =>
    Uint8Array.from({ length: size }, (_unused, index) => ((index * 2654435761 + seed) % 251) >>> (index % 3));
  const entries = [
    { name: 'a/one.json', bytes: new TextEncoder().encode(LINES.join('\n').repeat(20)) },
    { name: 'a/two.bin', bytes: noise(7, 300_000) },
    { name: 'b.txt', bytes: noise(3, 70_001) },
  ];
  const archive = await packTarGz(entries);
  const whole = gzipSync(gunzipSync(archive), { level: constants.Z_BEST_COMPRESSION });
  whole[9] = archive[9] ?? 0;
  expect(Buffer.from(archive).equals(whole)).toBe(true);
});
