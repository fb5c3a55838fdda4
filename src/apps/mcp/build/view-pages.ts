// The MCP Apps views (../views.ts), each made into one self-contained HTML page at build time
// (src/build/api.ts stores them): its entry (../views/<name>.ts) bundled by esbuild for the browser with
// the App class of @modelcontextprotocol/ext-apps, and the wiki's own stylesheet, its dark
// tokens following the host's theme (data-theme, which the App sets) rather than the frame's
// prefers-color-scheme. The page's own Content-Security-Policy allows its inline script and
// style by their SHA-256 and nothing from anywhere else. Stored as bodies of the current data
// (as JSON strings; read by the MCP server, never sent by the API), so every runtime and bundle holds them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, transformSync } from 'esbuild';
import { projectDir } from '../../../cli/project-dir.ts';
import { MCP_VIEWS, type ViewName } from '../views.ts';

const VIEWS_DIR = fileURLToPath(new URL('../views/', import.meta.url));
const WIKI_CSS = join(projectDir, 'src', 'wiki', 'wiki.css');

/** wiki.css's dark tokens, for the theme the host names: the same values under :root[data-theme="dark"]. */
export function hostThemedCss(css: string): string {
  const dark = /@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}\s*\}/;
  const match = dark.exec(css);
  if (!match) throw new Error(`${WIKI_CSS} has no @media (prefers-color-scheme: dark) { :root { ... } } block`);
  return css.replace(dark, `:root[data-theme="dark"] {${match[1]}}`);
}

const sha256Source = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** A view's page: its bundled script and the wiki's styles inline, under a policy allowing only them. */
export function viewPage(name: ViewName): string {
  const script = buildSync({
    entryPoints: [join(VIEWS_DIR, `${name}.ts`)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    // Non-ASCII text as itself, not \u-escaped (the page is UTF-8): zod's locales shrink by 70 KB, 1 KB gzipped.
    charset: 'utf8',
    logLevel: 'silent',
  }).outputFiles[0]?.text;
  if (script === undefined) throw new Error(`esbuild made nothing of ${name}.ts in ${VIEWS_DIR}`);
  const css = transformSync(hostThemedCss(readFileSync(WIKI_CSS, 'utf8')) + readFileSync(join(VIEWS_DIR, 'view.css')), {
    loader: 'css',
    minify: true,
  }).code.trim();
  // A closing tag inside the script would end it early; esbuild writes none, this checks it never does.
  if (/<\/script/i.test(script)) throw new Error(`The bundled ${name} view holds "</script": it cannot be inlined`);
  const policy = [
    "default-src 'none'",
    `script-src ${sha256Source(script)}`,
    `style-src ${sha256Source(css)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta http-equiv="Content-Security-Policy" content="${policy}">` +
    `<title>${MCP_VIEWS[name].title}</title><style>${css}</style></head>` +
    `<body><script type="module">${script}</script></body></html>`
  );
}
