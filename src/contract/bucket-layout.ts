// Where the API's files live in an R2 bucket (the R2 mode, docs/deploy.md): one object per
// body, named by its SHA-256 as in dist/, and the routing index under a prefix named by the
// index's own digest. No object is ever overwritten: a deploy adds the objects the bucket
// lacks, and an earlier Worker version (a rollback) still finds its index and its bodies.
import { BODIES_DIR, INDEX_DIR } from './paths.ts';

/** The bucket's binding in the Worker (wrangler's `[[r2_buckets]]`). */
export const BUCKET_BINDING = 'API_BUCKET';
/** The Worker's variable naming the index it serves: the prefix `index/<API_INDEX>/`. */
export const INDEX_VARIABLE = 'API_INDEX';

/**
 * The bucket key of an API file given by its dist/ path (`api/bodies/<sha256>`,
 * `api/index/...`); undefined for a file the bucket does not hold (the Node server's pack).
 */
export function bucketKey(distPath: string, indexId: string): string | undefined {
  if (distPath.startsWith(`${BODIES_DIR}/`)) return `bodies/${distPath.slice(BODIES_DIR.length + 1)}`;
  if (distPath.startsWith(`${INDEX_DIR}/`)) return `index/${indexId}/${distPath.slice(INDEX_DIR.length + 1)}`;
  return undefined;
}

/**
 * A local run's count of the Worker's invocations (`npm run worker` with countInvocations): with
 * the variable on, GET on the path answers how many requests ran the Worker before it, so a test
 * can tell what the static assets served alone. Never set in a deployment.
 */
export const INVOCATIONS_VARIABLE = 'COUNT_INVOCATIONS';
export const INVOCATIONS_PATH = '/__invocations';
