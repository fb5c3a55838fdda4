// encodeText (src/server/encode.ts): a body the edge made for one query, in the chosen encoding,
// decodes to the text's UTF-8 bytes; identity is those bytes.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { encodeText } from '../../src/server/encode.ts';

const text = '{"error":false,"message":"Suggestions for the requested tree.","data":[{"name":"Ünïcödé","level":1}]}';
const utf8 = Buffer.from(text, 'utf8');

test('identity is the UTF-8 bytes of the text', () => {
  expect(Buffer.from(encodeText(text, 'identity'))).toEqual(utf8);
});

test('br decodes to the UTF-8 bytes, and is not them', () => {
  const encoded = Buffer.from(encodeText(text, 'br'));
  expect(encoded.equals(utf8)).toBe(false);
  expect(brotliDecompressSync(encoded)).toEqual(utf8);
});

test('gzip decodes to the UTF-8 bytes, and is gzip (1f 8b)', () => {
  const encoded = Buffer.from(encodeText(text, 'gzip'));
  expect([...encoded.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
  expect(gunzipSync(encoded)).toEqual(utf8);
});
