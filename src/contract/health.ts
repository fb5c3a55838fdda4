// GET /healthz: whether a server is up and which data it serves, for load balancers and
// uptime checks. No token; never cached, so every check reaches the server.

export const HEALTH_PATH = '/healthz';
export const HEALTH_CACHE_CONTROL = 'no-store';

/**
 * The body of a health answer: `{"status":"ok","dataVersion":"<the build's data version>"}`, and
 * `"disabled"` listing the optional features a malformed setting turned off, when any is (the
 * Worker's: the rest of the deployment serves on).
 */
export const healthBody = (dataVersion: string, disabled: readonly string[] = []): string =>
  JSON.stringify(disabled.length === 0 ? { status: 'ok', dataVersion } : { status: 'ok', dataVersion, disabled });
