// The Worker's variables and secrets (wrangler's `[vars]`, `wrangler secret put`), as
// docs/configuration.md lists them: the tokens and the rate limit are read as every runtime
// reads them (src/schema/environment.ts); the R2 mode's index and the test counter are its own.
// The Worker reads every one of them here, once per isolate (workerSettings). A Worker cannot
// refuse to start, and a deployment's optional feature must not take its site down: a malformed
// variable of an optional feature (FEATURES) turns off that feature alone, named, while the wiki,
// /healthz and every other feature keep serving.
import { z } from 'zod';
import { INDEX_ID_LENGTH, INDEX_VARIABLE, INVOCATIONS_VARIABLE } from '../contract/bucket-layout.ts';
import {
  documented,
  EnvironmentError,
  onOff,
  rateLimitVariables,
  readEnvironment,
  tokenVariables,
  type ValuesOf,
  variable,
} from '../schema/environment.ts';
import { type AppName, appVariables, MOUNTS, variablesOf } from '../apps/mounts.ts';

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
  ...appVariables,
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

/**
 * The Worker's optional features and the variables each reads: a malformed one turns its feature
 * off (its routes answer 503 naming it) rather than the deployment. The API needs its tokens and
 * its limit as given: one malformed, the API and /mcp are off, never served unguarded.
 */
export type Feature = 'api' | AppName | 'invocations';
/** Each app is a feature of its own, with its variables (src/apps/mounts.ts). */
export const FEATURES: Readonly<Record<Feature, readonly (keyof typeof workerVariables)[]>> = {
  api: ['tokens', 'tokenSha256', 'rateLimit'],
  ...(Object.fromEntries(MOUNTS.map((mount) => [mount.name, variablesOf(mount)])) as Record<AppName, []>),
  invocations: ['countInvocations'],
};

/** What an isolate reads of its variables: the settings, and each feature a malformed variable turned off. */
export interface WorkerConfiguration {
  /** A feature turned off has its variables' defaults here (no tokens, no key, no counter). */
  settings: WorkerSettings;
  /** Each feature turned off, with what is wrong (the variable and, but a secret's, its value). */
  disabled: ReadonlyMap<Feature, string>;
}

/**
 * The Worker's settings from its bindings. A malformed variable of a feature turns that feature
 * off; one of no feature (API_INDEX) is an EnvironmentError naming each bad variable and value
 * (no secret's), as the whole deployment cannot work.
 */
export function workerSettings(env: object): WorkerConfiguration {
  const disabled = new Map<Feature, string>();
  const featured = new Set<string>(Object.values(FEATURES).flat());
  const rest = Object.fromEntries(Object.entries(workerVariables).filter(([key]) => !featured.has(key)));
  const settings = readEnvironment(rest, env) as Partial<WorkerSettings>;
  for (const [feature, keys] of Object.entries(FEATURES) as [Feature, readonly (keyof WorkerSettings)[]][]) {
    const variables = Object.fromEntries(keys.map((key) => [key, workerVariables[key]]));
    try {
      Object.assign(settings, readEnvironment(variables, env));
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      disabled.set(feature, error.message.replaceAll('\n', '; '));
      Object.assign(settings, readEnvironment(variables, {}));
    }
  }
  return { settings: settings as WorkerSettings, disabled };
}
