// The wiki's search index: Pagefind reads the built record pages (those marked
// data-pagefind-body) and writes its index and UI files to dist/pagefind/.
import { join } from 'node:path';
import { close, createIndex } from 'pagefind';

export const SEARCH_INDEX_DIR = 'pagefind';

/** Indexes the HTML under `outDir`; returns a line for the build log. */
export async function writeSearchIndex(outDir: string): Promise<string> {
  const { index, errors } = await createIndex({ forceLanguage: 'en' });
  try {
    if (!index) throw new Error(`Pagefind could not start: ${errors.join('; ')}`);
    const added = await index.addDirectory({ path: outDir });
    const written = await index.writeFiles({ outputPath: join(outDir, SEARCH_INDEX_DIR) });
    const problems = [...added.errors, ...written.errors];
    if (problems.length > 0) throw new Error(`Pagefind failed: ${problems.join('; ')}`);
    return `Search: ${added.page_count} pages indexed into /${SEARCH_INDEX_DIR}/`;
  } finally {
    await close();
  }
}
