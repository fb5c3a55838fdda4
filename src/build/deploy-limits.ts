// The limits of Workers static assets, checked against a build before anyone tries to deploy
// it: `wrangler deploy` uploads dist/ as the Worker's assets and refuses a version with too
// many files or too large a file. The local Node server has no such limits, so the build
// warns and goes on. Figures: https://developers.cloudflare.com/workers/platform/limits/
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const WORKER_ASSET_LIMITS = {
  /** Files per Worker version on the Workers Free plan. */
  freeFiles: 20_000,
  /** Files per Worker version on the Workers Paid plan. */
  paidFiles: 100_000,
  /** Bytes per file, on every plan. */
  fileBytes: 25 * 1024 * 1024,
} as const;

/** Files at the root of the assets folder that wrangler reads as configuration and does not upload. */
const NOT_UPLOADED = new Set(['_headers', '_redirects', '.assetsignore']);
/** Oversized files named one by one in a warning; the rest are counted. */
const NAMED_FILES = 5;

export interface AssetFile {
  /** Relative to the assets folder, with forward slashes. */
  path: string;
  size: number;
}

const count = (value: number) => value.toLocaleString('en-US');
const mebibytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** What a deploy of these files as Workers static assets would run into: one sentence per problem, none if it fits. */
export function workerAssetWarnings(files: readonly AssetFile[]): string[] {
  const uploaded = files.filter((file) => !NOT_UPLOADED.has(file.path));
  const warnings: string[] = [];
  const { freeFiles, paidFiles, fileBytes } = WORKER_ASSET_LIMITS;
  if (uploaded.length > paidFiles) {
    warnings.push(
      `${count(uploaded.length)} files, more than the ${count(paidFiles)} static assets a Worker version may have ` +
        `on any plan: \`wrangler deploy\` would fail.`,
    );
  } else if (uploaded.length > freeFiles) {
    warnings.push(
      `${count(uploaded.length)} files, more than the ${count(freeFiles)} static assets of the Workers Free plan: ` +
        `deploying needs the Paid plan (up to ${count(paidFiles)}).`,
    );
  }
  const oversized = uploaded.filter((file) => file.size > fileBytes).sort((a, b) => b.size - a.size);
  if (oversized.length > 0) {
    const named = oversized.slice(0, NAMED_FILES).map((file) => `${file.path} (${mebibytes(file.size)})`);
    const more = oversized.length > NAMED_FILES ? ` and ${count(oversized.length - NAMED_FILES)} more` : '';
    warnings.push(
      `${named.join(', ')}${more} ${oversized.length === 1 ? 'is' : 'are'} larger than the ` +
        `${mebibytes(fileBytes)} a static asset may be: \`wrangler deploy\` would fail.`,
    );
  }
  return warnings;
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
