// Files of dist/ beside the wiki and the API's bodies and index: the published OpenAPI document
// and JSON Schemas (also in the bundles), the sitemap, the pack the Node server reads, and the
// list of what the Worker deployment leaves out.
import type { KindId } from '../schema/kind-ids.ts';
import { API_DIR } from './paths.ts';

/** The OpenAPI document, at the site's root and in every bundle. */
export const OPENAPI_FILE = 'openapi.json';
/** The JSON Schema of one record of `kind`. */
export const schemaPath = (kind: KindId) => `schemas/${kind}.json`;

/** What the sitemap's files are named after (Astro's sitemap integration): robots.txt names the index. */
export const SITEMAP_NAME = 'sitemap';
/** The sitemap's index, which lists its parts (`sitemap-0.xml`, ...), each listing up to 45,000 pages. */
export const SITEMAP_INDEX_FILE = `${SITEMAP_NAME}-index.xml`;

/**
 * Every stored body of a build once, one after another (each self-delimiting, see
 * src/contract/body-container.ts): the Node server reads this one file at start-up instead of
 * one file per body. The Worker fetches single bodies, so the pack is not deployed.
 */
export const PACK_FILE = `${API_DIR}/bodies.pack`;

/**
 * The settings a build was made with that change what it writes (SITE_ORIGIN, TREEFARM_DATA_DIR): `npm start` and
 * `npm run deploy` build again when they differ from the settings now. Not deployed.
 */
export const BUILD_SETTINGS_FILE = `${API_DIR}/build-settings.json`;

/** The file of dist/ that lists what `wrangler deploy` leaves out of the Worker's static assets. */
export const ASSETS_IGNORE_FILE = '.assetsignore';
/** Files of dist/ that are not Workers static assets: written to ASSETS_IGNORE_FILE, one a line. */
export const NOT_DEPLOYED: readonly string[] = [PACK_FILE, BUILD_SETTINGS_FILE];
