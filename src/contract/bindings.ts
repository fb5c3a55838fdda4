// The names of the Cloudflare Worker's bindings that the code refers to, in one place: the
// Worker (src/worker/worker.ts) reads its env by them, and the tooling (src/cloudflare/) binds
// them for `npm run worker` and `npm run deploy`. The assets binding (ASSETS) is named in
// wrangler.toml alone: the Worker reaches it through the Env type `npm run worker:types` makes.

/** The R2 bucket of the R2 mode (wrangler's `[[r2_buckets]]`, docs/deploy.md). */
export const BUCKET_BINDING = 'API_BUCKET';
/** Cloudflare's rate limiting (wrangler's `[[ratelimits]]`, docs/limits.md), when deployed with one. */
export const RATE_LIMIT_BINDING = 'API_RATE_LIMITER';
