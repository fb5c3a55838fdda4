// `npm run bench:wiki-compression`: what compressing the wiki's text files costs, to choose
// where it is done (BENCHMARKS.md, "The wiki, compressed"): every file the Node server sends
// compressed (src/server/static-text.ts's TEXT_TYPES, outside api/ and downloads/) in dist/,
// in each encoding and quality, one after another on one core: bytes and time in all, and the
// time of the largest file (the longest a first request waits).
import '../src/cli/node-check.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { API_DIR } from '../src/contract/paths.ts';
import { DOWNLOADS_DIR } from '../src/contract/bundle-layout.ts';
import { encodeBytes } from '../src/server/encode.ts';
import { TEXT_TYPES } from '../src/server/static-text.ts';
import { distDir } from '../test/support/runtimes.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

await commandLine({
  command: 'npm run bench:wiki-compression',
  summary:
    "What compressing the wiki's text files costs in each encoding and quality, one after another on one " +
    'core: bytes and time, to choose where it is done.',
  options: {},
  variables: {},
  examples: ['npm run bench:wiki-compression'],
  version: () => projectVersion(),
});

const brotli = (quality: number) => (bytes: Buffer) =>
  brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } });
const CANDIDATES: [string, (bytes: Buffer) => Uint8Array][] = [
  ['br 11 (the API bodies, at build time)', brotli(11)],
  ['br 9', brotli(9)],
  ['br 5 (the server, encode.ts)', (bytes) => encodeBytes(bytes, 'br')],
  ['gzip 9 (the API bodies, at build time)', (bytes) => gzipSync(bytes, { level: 9 })],
  ['gzip 6 (the server, encode.ts)', (bytes) => encodeBytes(bytes, 'gzip')],
];

const files = readdirSync(distDir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && TEXT_TYPES[extname(entry.name)] !== undefined)
  .map((entry) => join(entry.parentPath, entry.name))
  .filter((path) => ![API_DIR, DOWNLOADS_DIR].includes(relative(distDir, path).split('/')[0] ?? ''));
const contents = files.map((path) => readFileSync(path));
const largest = contents.reduce((most, bytes) => (bytes.length > most.length ? bytes : most));
const identity = contents.reduce((sum, bytes) => sum + bytes.length, 0);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

console.log(`${files.length} text files, ${kib(identity)}; the largest ${kib(largest.length)}`);
console.log('| encoding | bytes | of identity | time, all files | time, the largest |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name, encode] of CANDIDATES) {
  const started = performance.now();
  const bytes = contents.reduce((sum, content) => sum + encode(content).byteLength, 0);
  const all = performance.now() - started;
  const one = performance.now();
  encode(largest);
  const single = performance.now() - one;
  const share = `${((bytes / identity) * 100).toFixed(1)} %`;
  console.log(`| ${name} | ${kib(bytes)} | ${share} | ${all.toFixed(0)} ms | ${single.toFixed(1)} ms |`);
}
