// `npm run bench:mcp-views`: the size of each MCP Apps view (src/apps/mcp/views.ts) as the build
// makes it (src/apps/mcp/build/view-pages.ts, viewPage): one self-contained HTML page, in bytes, gzipped
// (level 9) and in br (quality 11), and the time to make it; beside them, the App class of
// @modelcontextprotocol/ext-apps bundled alone (minified, gzipped), the part of every view that
// is the SDK's. Goal (issue 64): at most 60 KB gzipped a view.
import '../src/cli/node-check.ts';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import { viewNames } from '../src/apps/mcp/views.ts';
import { viewPage } from '../src/apps/mcp/build/view-pages.ts';
import { projectVersion } from '../src/cli/project-version.ts';
import { commandLine } from '../src/cli/command-line.ts';

await commandLine({
  command: 'npm run bench:mcp-views',
  summary:
    'The size of each MCP Apps view as the build makes it (bytes, gzipped, br) and the time to make it, ' +
    "beside ext-apps' App class bundled alone.",
  options: {},
  variables: {},
  examples: ['npm run bench:mcp-views'],
  version: () => projectVersion(),
});

const GOAL_GZIPPED = 60_000;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const gzipped = (text: string) => gzipSync(text, { level: 9 }).length;
const brotli = (text: string) => brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

const appAlone =
  buildSync({
    stdin: { contents: "import { App } from '@modelcontextprotocol/ext-apps'; export default App;", resolveDir: '.' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  }).outputFiles[0]?.text ?? '';

console.log('| view | bytes | gzipped | br 11 | made in | goal: gzipped <= 60 KB |');
console.log('| --- | ---: | ---: | ---: | ---: | --- |');
for (const name of viewNames) {
  const started = performance.now();
  const page = viewPage(name);
  const made = performance.now() - started;
  const zipped = gzipped(page);
  const status = zipped <= GOAL_GZIPPED ? 'MET' : 'NOT MET';
  console.log(
    `| ${name} | ${kb(page.length)} | ${kb(zipped)} | ${kb(brotli(page))} | ${made.toFixed(0)} ms | ${status} |`,
  );
}
console.log(
  `| ext-apps' App class alone | ${kb(appAlone.length)} | ${kb(gzipped(appAlone))} | ${kb(brotli(appAlone))} | | |`,
);
