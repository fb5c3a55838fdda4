// GET /healthz: whether a server is up and which data it serves, for load balancers and
// uptime checks. No token; never cached, so every check reaches the server.

export const HEALTH_PATH = '/healthz';
export const HEALTH_CACHE_CONTROL = 'no-store';

/** The body of a health answer: `{"status":"ok","dataVersion":"<the build's data version>"}`. */
export const healthBody = (dataVersion: string): string => JSON.stringify({ status: 'ok', dataVersion });
