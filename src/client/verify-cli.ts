// `npm run bundle:verify -- <archive>`: checks a bundle (manifest present, every file's
// size and sha256, counts) and prints its version and counts; exit status 1 on failure.
import { readFile } from 'node:fs/promises';
import { verifyBundle } from './bundle.ts';
import { TreefarmError } from './errors.ts';

async function main(paths: string[]): Promise<number> {
  if (paths.length !== 1) {
    console.error('Usage: npm run bundle:verify -- <archive.tar.gz | archive.zip>');
    return 1;
  }
  const [path = ''] = paths;
  try {
    const bundle = await verifyBundle(new Uint8Array(await readFile(path)));
    console.log(`${path}: OK, data version ${bundle.version}, ${bundle.files.size} files verified`);
    for (const [kind, count] of Object.entries(bundle.counts)) console.log(`  ${kind.padEnd(9)} ${count}`);
    return 0;
  } catch (error) {
    const reason = error instanceof TreefarmError ? error.message : `cannot read it: ${(error as Error).message}`;
    console.error(`${path}: NOT a valid bundle. ${reason}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
