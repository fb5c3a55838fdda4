// `npm run client:size`: what the online client costs a web page or a Worker, measured as a
// bundler ships it: packages/client/dist/index.js and the chunks it imports, minified
// (esbuild) and gzipped (level 9). The package's promise: under CLIENT_SIZE_LIMIT.
import '../../../src/cli/node-check.ts';
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { projectVersion } from '../../../src/cli/project-version.ts';
import { CommandError, type CommandSpec, runMain } from '../../../src/cli/command-line.ts';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const CLIENT_SIZE_LIMIT = 8 * 1024;
export const ONLINE_ENTRY = new URL('../dist/index.js', import.meta.url);

export interface Size {
  minified: number;
  gzipped: number;
  /** The packages the bundle could not find in itself, so would add: none for the online client. */
  imports: string[];
}

export async function measureOnlineClient(entry: URL = ONLINE_ENTRY): Promise<Size> {
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Anything imported from a package stays outside, so it shows up in `imports`.
    packages: 'external',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map(({ path }) => path));
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, imports };
}

const sizeCommand: CommandSpec = {
  command: 'npm run client:size',
  summary:
    'Measures what the online client costs a web page or a Worker: packages/client/dist/index.js and the chunks ' +
    'it imports, minified and gzipped (run npm run client:build first). Exit status 1 past the limit.',
  options: {},
  variables: {},
  examples: ['npm run client:build && npm run client:size'],
  version: () => projectVersion(),
};

if (import.meta.main) {
  await runMain(sizeCommand, async () => {
    if (!existsSync(ONLINE_ENTRY))
      throw new CommandError(`${fileURLToPath(ONLINE_ENTRY)} is not built: npm run client:build`);
    const { minified, gzipped, imports } = await measureOnlineClient();
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
    console.log(`online client (treefarm-data-client): ${kb(minified)} minified, ${kb(gzipped)} minified + gzip`);
    console.log(`limit ${kb(CLIENT_SIZE_LIMIT)}; imports from other packages: ${imports.join(', ') || 'none'}`);
    return gzipped >= CLIENT_SIZE_LIMIT || imports.length > 0 ? 1 : 0;
  });
}
