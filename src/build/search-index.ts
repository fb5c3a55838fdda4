// The wiki's search index: Pagefind reads the built record pages (those marked
// data-pagefind-body) and hands back its index and UI files, which the build writes to
// dist/pagefind/ itself. Written by Pagefind's own process, a file could be left cut short
// when that process was stopped under load (seen twice: pagefind.js at 32,768 bytes); the
// bytes received here are whole, and a write that fails throws.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { close, createIndex } from 'pagefind';

export const SEARCH_INDEX_DIR = 'pagefind';

/** Indexes the HTML under `outDir`; returns a line for the build log. */
export async function writeSearchIndex(outDir: string): Promise<string> {
  const { index, errors } = await createIndex({ forceLanguage: 'en' });
  try {
    if (!index) throw new Error(`Pagefind could not start: ${errors.join('; ')}`);
    const added = await index.addDirectory({ path: outDir });
    const made = await index.getFiles();
    const problems = [...added.errors, ...made.errors];
    if (problems.length > 0) throw new Error(`Pagefind failed: ${problems.join('; ')}`);
    const target = join(outDir, SEARCH_INDEX_DIR);
    for (const file of made.files) {
      const path = join(target, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content);
    }
    return `Search: ${added.page_count} pages indexed into /${SEARCH_INDEX_DIR}/ (${made.files.length} files)`;
  } finally {
    await close();
  }
}
