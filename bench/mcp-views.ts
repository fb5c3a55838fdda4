// `npm run bench:mcp-views`: the size of each MCP Apps view (src/apps/mcp/views.ts) as the build
// makes it (src/apps/mcp/build/view-pages.ts, viewPage): one self-contained HTML page, in bytes, gzipped
// (level 9) and in br (quality 11), and the time to make it; beside them, the floor every view stands
// on, the SDK's own browser bundle of ext-apps' App class (`@modelcontextprotocol/ext-apps/app-with-deps`,
// read from node_modules), and our share: the page gzipped minus the floor gzipped.
// Goal: at most the SDK's bundled App plus 16 KB gzipped of our own (test/support/mcp-view-size.ts).
// Issue 64 asked for at most 60 KB gzipped a view; the App class it names cannot come in under that: the
// SDK's own bundle of it (the SDK's protocol, zod and zod's locales) is 130 KB gzipped by itself.
import '../src/cli/node-check.ts';
import { brotliCompressSync, constants } from 'node:zlib';
import { viewNames } from '../src/apps/mcp/views.ts';
import { viewPage } from '../src/apps/mcp/build/view-pages.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';
import { gzippedSize, OWN_SHARE_GZIPPED, sdkAppBundle } from '../test/support/mcp-view-size.ts';

await commandLine({
  command: 'npm run bench:mcp-views',
  summary:
    'The size of each MCP Apps view as the build makes it (bytes, gzipped, br) and the time to make it, ' +
    "beside the SDK's own bundle of ext-apps' App class, the floor of every view, and our share over it.",
  options: {},
  variables: {},
  examples: ['npm run bench:mcp-views'],
  version: () => projectVersion(),
});

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const bytesOf = (text: string) => Buffer.byteLength(text);
const brotli = (text: string) => brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

const sdk = sdkAppBundle();
const floor = gzippedSize(sdk);

console.log(
  `| view | bytes | gzipped | br 11 | made in | ours: gzipped - floor | goal: ours <= ${kb(OWN_SHARE_GZIPPED)} |`,
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
for (const name of viewNames) {
  const started = performance.now();
  const page = viewPage(name);
  const made = performance.now() - started;
  const zipped = gzippedSize(page);
  const status = zipped - floor <= OWN_SHARE_GZIPPED ? 'MET' : 'NOT MET';
  console.log(
    `| ${name} | ${kb(bytesOf(page))} | ${kb(zipped)} | ${kb(brotli(page))} | ${made.toFixed(0)} ms ` +
      `| ${kb(zipped - floor)} | ${status} |`,
  );
}
console.log(`| floor: the SDK's app-with-deps.js | ${kb(bytesOf(sdk))} | ${kb(floor)} | ${kb(brotli(sdk))} | | | |`);
