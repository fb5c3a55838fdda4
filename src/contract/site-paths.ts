// How a path of the static site resolves, in every runtime: the rule of Workers static assets
// with `html_handling = "auto-trailing-slash"` (wrangler.toml's default), which the Worker gets
// from Cloudflare and the Node server from this module (src/server/static-site.ts). The path is
// decoded segment by segment and its runs of slashes made one; a page is served at its folder's
// path with a trailing slash (`/trees/oak-tree/`), and every other spelling that names the same
// file (`/trees/oak-tree`, `/trees/oak-tree/index`, `.../index.html`, `/trees//oak-tree/`,
// `/trees/%6fak-tree/`) is a 307 to that canonical path, the query kept. Mirrors
// `htmlHandlingAutoTrailingSlash` and `getResponseOrAssetIntent` in workers-shared's asset-worker.

/** What a site path is: a file to serve (its decoded path), a 307 to a location, or nothing (the 404 page). */
export type SitePath = { file: string } | { redirect: string } | { notFound: true };

/** Whether a decoded site path ("/trees/oak-tree/index.html") is a file the site serves. */
export type IsSiteFile = (path: string) => Promise<boolean>;

/** Each segment decoded (left as it is when it is no valid encoding), runs of slashes made one. */
export const decodeSitePath = (pathname: string): string =>
  pathname
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/')
    .replace(/\/+/g, '/');

/** Each segment percent-encoded as encodeURIComponent does. */
export const encodeSitePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

type Intent = { file: string } | { redirect: string } | undefined;

/** A redirect to `destination` when it is no file itself but resolves (without redirects) to `file`. */
async function redirectTo(file: string, destination: string, isFile: IsSiteFile, skip: boolean): Promise<Intent> {
  if (skip || (await isFile(destination))) return undefined;
  const there = await intentOf(destination, isFile, true);
  return there && 'file' in there && there.file === file ? { redirect: destination } : undefined;
}

/** What a decoded path resolves to, as auto-trailing-slash decides; `skip`: files only, no redirect. */
async function intentOf(path: string, isFile: IsSiteFile, skip: boolean): Promise<Intent> {
  const to = (file: string, destination: string) => redirectTo(file, destination, isFile, skip);
  const exact = await isFile(path);
  let found: Intent;
  if (path.endsWith('/index')) {
    if (exact) return { file: path };
    found = (await to(`${path}.html`, path.slice(0, -5))) ?? (await to(`${path.slice(0, -6)}.html`, path.slice(0, -6)));
  } else if (path.endsWith('/index.html')) {
    found = (await to(path, path.slice(0, -10))) ?? (await to(`${path.slice(0, -11)}.html`, path.slice(0, -11)));
  } else if (path.endsWith('/')) {
    if (await isFile(`${path}index.html`)) return { file: `${path}index.html` };
    found = await to(`${path.slice(0, -1)}.html`, path.slice(0, -1));
  } else if (path.endsWith('.html')) {
    found =
      (await to(path, path.slice(0, -5))) ?? (await to(`${path.slice(0, -5)}/index.html`, `${path.slice(0, -5)}/`));
  }
  if (found) return found;
  if (exact) return { file: path };
  if (await isFile(`${path}.html`)) return { file: `${path}.html` };
  return to(`${path}/index.html`, `${path}/`);
}

/**
 * What the site answers at `pathname` (as the URL standard parses it, still encoded) with
 * `search` (`?...` or empty): a 307 when the canonical spelling differs or the path names a
 * page by another name, else the file, else the 404 page.
 */
export async function sitePath(pathname: string, search: string, isFile: IsSiteFile): Promise<SitePath> {
  const decoded = decodeSitePath(pathname);
  const intent = await intentOf(decoded, isFile, false);
  if (!intent) return { notFound: true };
  const location = encodeSitePath('redirect' in intent ? intent.redirect : decoded);
  if ('redirect' in intent || location !== pathname) return { redirect: location + search };
  return intent;
}
