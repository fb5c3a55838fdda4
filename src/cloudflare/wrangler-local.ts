// What keeps wrangler's local runs (`npm run worker`, `npm run deploy -- --local`) on this
// machine and inside the project and temporary folders. wrangler and miniflare take these as
// environment variables only, read when they act, so they are set in this process before
// wrangler runs: it fetches https://workers.cloudflare.com/cf.json for the Worker's `request.cf`
// (miniflare), writes a debug log and a metrics file (with a device id, even with metrics off)
// under its global config folder (~/.config/.wrangler) and registers each dev session there; the
// build command's npm checks the registry for a newer npm and writes a debug log in ~/.npm.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** wrangler's folder of the project (git-ignored), where its local state already is. */
const projectWrangler = fileURLToPath(new URL('../../.wrangler/', import.meta.url));

/** The variables set, each as the tool that reads it documents it. */
const LOCAL_ONLY: Readonly<Record<string, string>> = {
  // miniflare: no fetch of the cf object; requests carry its built-in placeholder instead.
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  // wrangler: no usage metrics, no debug log file.
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_WRITE_LOGS: 'false',
  // npm (wrangler.toml's build command): no update check, no debug log file.
  npm_config_update_notifier: 'false',
  npm_config_logs_max: '0',
};

let done = false;

/**
 * Sets, once a process, what keeps wrangler local: the variables above, and its global config
 * folder (XDG_CONFIG_HOME, where the metrics file and the dev registry go) and npm's cache
 * folder in the project's .wrangler/. Not a temporary folder: a process stopped by a signal
 * with no handler left (vitest's workers are) would leave it behind. Only for local runs: a
 * deploy to Cloudflare needs the login kept in the user's own config folder.
 */
export function keepWranglerLocal(): void {
  if (done) return;
  done = true;
  Object.assign(process.env, LOCAL_ONLY);
  process.env.XDG_CONFIG_HOME = join(projectWrangler, 'config');
  // npm makes its cache folder (~/.npm) even when it writes nothing there.
  process.env.npm_config_cache = join(projectWrangler, 'npm');
}
