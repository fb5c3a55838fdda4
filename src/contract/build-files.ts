// Files of dist/ beside the wiki and the API's bodies and index: the pack the Node server
// reads, and the list of what the Worker deployment leaves out.
import { API_DIR } from './paths.ts';

/**
 * Every stored body of a build once, one after another (each self-delimiting, see
 * src/contract/body-container.ts): the Node server reads this one file at start-up instead of
 * one file per body. The Worker fetches single bodies, so the pack is not deployed.
 */
export const PACK_FILE = `${API_DIR}/bodies.pack`;

/** The file of dist/ that lists what `wrangler deploy` leaves out of the Worker's static assets. */
export const ASSETS_IGNORE_FILE = '.assetsignore';
/** Files of dist/ that are not Workers static assets: written to ASSETS_IGNORE_FILE, one a line. */
export const NOT_DEPLOYED: readonly string[] = [PACK_FILE];
