// The Worker's variables and secrets (wrangler's `[vars]`, `wrangler secret put`), as
// docs/configuration.md lists them: the tokens and the rate limit are read as every runtime
// reads them (src/schema/environment.ts); the R2 mode's index and the test counter are its own.
import { z } from 'zod';
import { INDEX_VARIABLE, INVOCATIONS_VARIABLE } from '../contract/bucket-layout.ts';
import {
  discordVariables,
  documented,
  onOff,
  rateLimitVariables,
  tokenVariables,
  variable,
} from '../schema/environment.ts';

export const workerVariables = {
  ...tokenVariables,
  ...rateLimitVariables,
  ...discordVariables,
  index: documented(
    variable(INDEX_VARIABLE, z.string()),
    'The R2 mode: which deploy object of the bucket the Worker serves. `npm run deploy` sets it; not set by hand.',
    'unset: the API from the static assets',
  ),
  countInvocations: documented(
    variable(INVOCATIONS_VARIABLE, onOff, false),
    'Tests only: counts the requests that ran the Worker (never set in a deployment).',
    'off',
  ),
};
