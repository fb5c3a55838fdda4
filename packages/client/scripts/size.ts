// `npm run client:size`: what the online client costs a web page or a Worker, measured as a
// bundler ships it: packages/client/dist/index.js and the chunks it imports, minified
// (esbuild) and gzipped (level 9). The package's promise: under CLIENT_SIZE_LIMIT.
import { build } from 'esbuild';
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

if (import.meta.main) {
  const { minified, gzipped, imports } = await measureOnlineClient();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
  console.log(`online client (treefarm-data-client): ${kb(minified)} minified, ${kb(gzipped)} minified + gzip`);
  console.log(`limit ${kb(CLIENT_SIZE_LIMIT)}; imports from other packages: ${imports.join(', ') || 'none'}`);
  if (gzipped >= CLIENT_SIZE_LIMIT || imports.length > 0) process.exitCode = 1;
}
