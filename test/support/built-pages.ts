// The wiki's pages as built into dist/: each HTML file by the URL path that serves it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { distDir } from './runtimes.ts';

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/** Each built page by its URL path ("/trees/oak-tree/"), with its HTML. */
export function builtPages(dir = distDir): Map<string, string> {
  return new Map(
    htmlFiles(dir).map((file) => {
      const path = `/${relative(dir, file).split(sep).join('/')}`.replace(/index\.html$/, '');
      return [path, readFileSync(file, 'utf8')];
    }),
  );
}
