// The limits of Workers static assets, checked against a build before anyone tries to deploy
// it: `wrangler deploy` uploads dist/ as the Worker's assets (all but what .assetsignore
// names) and refuses a version with too many files or too large a file. The local Node server
// has no such limits, so the build names the plan a deploy needs, warns past the limits and
// goes on. Figures: https://developers.cloudflare.com/workers/platform/limits/
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { bundleContentType, STATIC_ASSET_FILE_BYTES } from '../contract/bucket-layout.ts';
import { DOWNLOADS_DIR } from '../contract/bundle-layout.ts';
import { API_DIR } from '../contract/paths.ts';
import { ASSETS_IGNORE_FILE, NOT_DEPLOYED } from '../contract/build-files.ts';

export const WORKER_ASSET_LIMITS = {
  /** Files per Worker version on the Workers Free plan. */
  freeFiles: 20_000,
  /** Files per Worker version on the Workers Paid plan. */
  paidFiles: 100_000,
  /** Bytes per file, on every plan. */
  fileBytes: STATIC_ASSET_FILE_BYTES,
} as const;

/** Files of the assets folder wrangler reads as configuration and does not upload. */
const CONFIGURATION = ['_headers', '_redirects', ASSETS_IGNORE_FILE];
/** Oversized files named one by one in a warning; the rest are counted. */
const NAMED_FILES = 5;

export interface AssetFile {
  /** Relative to the assets folder, with forward slashes. */
  path: string;
  size: number;
}

export const count = (value: number) => value.toLocaleString('en-US');
export const mebibytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** Whether the R2 mode takes a file out of the static assets: the API's files, and a bundle past 25 MiB. */
const inR2Mode = (file: AssetFile): boolean =>
  file.path.startsWith(`${API_DIR}/`) ||
  (file.path.startsWith(`${DOWNLOADS_DIR}/`) &&
    bundleContentType(file.path.slice(DOWNLOADS_DIR.length + 1)) !== undefined &&
    file.size > STATIC_ASSET_FILE_BYTES);

/** What a deploy of these files as Workers static assets would run into: one sentence per problem, none if it fits. */
export function workerAssetWarnings(files: readonly AssetFile[], ignored: readonly string[] = NOT_DEPLOYED): string[] {
  const uploaded = uploadedFiles(files, ignored);
  const warnings: string[] = [];
  const { freeFiles, paidFiles, fileBytes } = WORKER_ASSET_LIMITS;
  // The R2 mode (docs/deploy.md) keeps the API's files and the large bundles out of the assets:
  // said where that is what would make the deploy fit.
  const staticInR2 = uploaded.filter((file) => !inR2Mode(file));
  const inR2 = count(uploaded.length - staticInR2.length);
  const withoutApi = ` (the R2 mode, BODIES=r2, keeps ${inR2} of them, the API's, in R2)`;
  if (uploaded.length > paidFiles) {
    warnings.push(
      `${count(uploaded.length)} files, more than the ${count(paidFiles)} static assets a Worker version may have ` +
        `on any plan: \`wrangler deploy\` would fail${staticInR2.length <= paidFiles ? withoutApi : ''}.`,
    );
  } else if (uploaded.length > freeFiles) {
    warnings.push(
      `${count(uploaded.length)} files, more than the ${count(freeFiles)} static assets of the Workers Free plan: ` +
        `deploying needs the Paid plan (up to ${count(paidFiles)})${staticInR2.length <= freeFiles ? withoutApi : ''}.`,
    );
  }
  const oversized = uploaded.filter((file) => file.size > fileBytes).sort((a, b) => b.size - a.size);
  if (oversized.length > 0) {
    const named = oversized.slice(0, NAMED_FILES).map((file) => `${file.path} (${mebibytes(file.size)})`);
    const more = oversized.length > NAMED_FILES ? ` and ${count(oversized.length - NAMED_FILES)} more` : '';
    const r2 = oversized.every(inR2Mode) ? ' (the R2 mode, BODIES=r2, keeps them in R2)' : '';
    warnings.push(
      `${named.join(', ')}${more} ${oversized.length === 1 ? 'is' : 'are'} larger than the ` +
        `${mebibytes(fileBytes)} a static asset may be: \`wrangler deploy\` would fail${r2}.`,
    );
  }
  return warnings;
}

/**
 * Whether an .assetsignore pattern covers a path: the patterns the build writes and the plain
 * forms of gitignore that wrangler reads (a path, a folder ending in "/", "*" within a segment,
 * a leading "/" anchoring it). Negations ("!") are not supported and match nothing.
 */
export function ignoredBy(pattern: string, path: string): boolean {
  const trimmed = pattern.trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) return false;
  const anchored = trimmed.startsWith('/') || trimmed.slice(0, -1).includes('/');
  const body = trimmed.replace(/^\//, '');
  const folder = body.endsWith('/');
  const source = body
    .replace(/\/$/, '')
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  const regex = new RegExp(`${anchored ? '^' : '(?:^|/)'}${source}${folder ? '/' : '(?:$|/)'}`);
  return regex.test(path);
}

/** The files `wrangler deploy` would upload: not its configuration, nor what .assetsignore names. */
export function uploadedFiles(files: readonly AssetFile[], ignored: readonly string[]): AssetFile[] {
  return files.filter(
    (file) => !CONFIGURATION.includes(file.path) && !ignored.some((pattern) => ignoredBy(pattern, file.path)),
  );
}

/** The Workers plan a deploy of these files needs, or undefined when none can hold it. */
export function planNeeded(files: readonly AssetFile[], ignored: readonly string[] = NOT_DEPLOYED): string | undefined {
  const uploaded = uploadedFiles(files, ignored);
  if (uploaded.some((file) => file.size > WORKER_ASSET_LIMITS.fileBytes)) return undefined;
  if (uploaded.length <= WORKER_ASSET_LIMITS.freeFiles) return 'Free';
  return uploaded.length <= WORKER_ASSET_LIMITS.paidFiles ? 'Paid' : undefined;
}

/** The patterns of the .assetsignore of an assets folder (none when it has none). */
export function assetsIgnoreOf(dir: string): string[] {
  const path = join(dir, ASSETS_IGNORE_FILE);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
}

/**
 * One line for the build's log: what a deploy of these files uploads, and the plan it needs. The
 * build lists its output once for this and workerAssetWarnings (64,000 files at 10,000 trees).
 */
export function deploySummary(files: readonly AssetFile[], ignored: readonly string[]): string {
  const uploaded = uploadedFiles(files, ignored);
  const plan = planNeeded(files, ignored);
  const largest = uploaded.reduce((max, file) => Math.max(max, file.size), 0);
  return (
    `Worker deploy: ${count(uploaded.length)} files to upload (largest ${mebibytes(largest)}): ` +
    (plan ? `fits the Workers ${plan} plan.` : 'fits no Workers plan.')
  );
}

/** Every file below `dir` with its size, as workerAssetWarnings takes them. */
export function assetFilesBelow(dir: string): AssetFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path: relative(dir, path).split(sep).join('/'), size: statSync(path).size };
    });
}
