// The Worker's variables and secrets (wrangler's `[vars]`, `wrangler secret put`), as
// docs/configuration.md lists them: the tokens and the rate limit are read as every runtime
// reads them (src/schema/environment.ts); the R2 mode's index and the test counter are its own.
// The Worker reads every one of them here, once per isolate (workerSettings).
import { z } from 'zod';
import { INDEX_ID_LENGTH, INDEX_VARIABLE, INVOCATIONS_VARIABLE } from '../contract/bucket-layout.ts';
import {
  discordVariables,
  documented,
  onOff,
  rateLimitVariables,
  readEnvironment,
  tokenVariables,
  type ValuesOf,
  variable,
} from '../schema/environment.ts';

/** API_INDEX: the first hex digits of the deploy object's SHA-256, as bucket-objects.ts names it. */
const indexId: z.ZodType<string, string> = z
  .string()
  .trim()
  .regex(
    new RegExp(`^[0-9a-f]{${INDEX_ID_LENGTH}}$`),
    `must be ${INDEX_ID_LENGTH} lowercase hex digits (the deploy's, as \`npm run deploy\` sets it)`,
  );

export const workerVariables = {
  ...tokenVariables,
  ...rateLimitVariables,
  ...discordVariables,
  index: documented(
    variable(INDEX_VARIABLE, indexId),
    'The R2 mode: which deploy object of the bucket the Worker serves. `npm run deploy` sets it; not set by hand.',
    'unset: the API from the static assets',
  ),
  countInvocations: documented(
    variable(INVOCATIONS_VARIABLE, onOff, false),
    'Tests only: counts the requests that ran the Worker (never set in a deployment).',
    'off',
  ),
};

export type WorkerSettings = ValuesOf<typeof workerVariables>;

/** The Worker's settings from its bindings; an EnvironmentError naming each bad variable and value (no secret's). */
export const workerSettings = (env: object): WorkerSettings => readEnvironment(workerVariables, env);
