// The layout of an offline bundle, shared by the build that writes bundles and the client
// that reads them. API envelopes keep the paths of src/contract/paths.ts.
import { MANIFEST_FILE } from './paths.ts';
import { startsAsZip } from './zip-format.ts';
import type { KindId } from '../schema/kinds.ts';
import type { Manifest } from '../schema/manifest.ts';

export const BUNDLE_NAME = 'treefarm-data';
export const BUNDLE_FORMATS = ['tar.gz', 'zip'] as const;
export type BundleFormat = (typeof BUNDLE_FORMATS)[number];

/** The bundle's manifest: version, counts and the sha256 and size of every other file. */
export const BUNDLE_MANIFEST = MANIFEST_FILE;

export const bundleFileName = (version: string, format: BundleFormat) => `${BUNDLE_NAME}-${version}.${format}`;

/**
 * Most entries a bundle's archive may hold (files, and in a tar its folders): the client refuses
 * more, and the build writes no bundle past it. The build's bundle holds 25 files (31 tar entries)
 * and gains one per data release: 4,096 leaves room for thousands of releases, and keeps an
 * archive of millions of empty entries out.
 */
export const MAX_BUNDLE_ENTRIES = 4096;

/** Where the site publishes its bundles, and the file naming each one's size and SHA-256. */
export const DOWNLOADS_DIR = 'downloads';
export const LATEST_FILE = 'latest.json';
/** That file's path on the site, which the client reads a bundle's published digest from. */
export const PUBLISHED_BUNDLES = `${DOWNLOADS_DIR}/${LATEST_FILE}`;

/** A bundle as latest.json names it: the site's downloads page and the Worker read the same. */
export interface LatestBundle {
  name: string;
  format: BundleFormat;
  size: number;
  sha256: string;
}

/** latest.json: the data version, its counts and each bundle. */
export interface Latest {
  version: string;
  counts: Manifest['counts'];
  bundles: LatestBundle[];
}

/** The plain record array of a kind, in API order. */
export const dataPath = (kind: KindId) => `data/${kind}.json`;

/** The SQLite database of the bundle: a table per kind, aliases, releases and changes, full-text search. */
export const SQLITE_FILE = 'treefarm.sqlite';

/** The records of a kind as CSV (RFC 4180), in API order. */
export const csvPath = (kind: KindId) => `csv/${kind}.csv`;

/** The format of an archive by its first bytes, or undefined when it is neither. */
export function archiveFormat(bytes: Uint8Array): BundleFormat | undefined {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  if (startsAsZip(bytes)) return 'zip';
  return undefined;
}

/**
 * The API in a bundle, made for reading whole rather than by a cold Worker: every distinct
 * answer once, one per line of BUNDLE_BODIES (compact JSON holds no line break), and one index
 * file per scope mapping each route to its body's line number (from 1). The current data's
 * index lists every route; a release's lists only the routes where it differs from the current
 * data (null: the release has no such route), so a release adds what it changed, not a copy
 * of the API. The offline client answers through the edge's resolver over these files.
 */
export const BUNDLE_BODIES = 'api/bodies.jsonl';

/** A scope's index in a bundle: the current data's (release undefined), or a release's. */
export const bundleIndexPath = (release: string | undefined) =>
  release === undefined ? 'api/index/current.json' : `api/index/releases/${release}.json`;

/** The current data's index in a bundle: its data version, and every route's body (a line number). */
export interface BundleIndex {
  version: string;
  routes: Record<string, string>;
}

/** A release's index in a bundle: its data version, and the routes whose body differs from the current data's. */
export interface BundleReleaseIndex {
  version: string;
  routes: Record<string, string | null>;
}
