// wrangler.toml's [vars], checked by the Worker's own rules (workerVariables, over
// src/schema/environment.ts) before `npm run deploy` builds or uploads anything: a malformed
// value would otherwise be found by the deployed Worker, on Cloudflare, by its users.
import { EnvironmentError, readEnvironment } from '../schema/environment.ts';
import { workerVariables } from '../worker/settings.ts';
import { projectConfig } from './r2-run.ts';

/** What is wrong with the Worker's variables in `vars`, a line each: none when every value passes. */
export function varsProblems(vars: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  // wrangler passes a TOML number or table on as JSON, which the Worker reads as unset: say so.
  for (const { name, secret } of Object.values(workerVariables)) {
    const value = vars[name];
    if (value !== undefined && typeof value !== 'string')
      problems.push(`${name} must be a quoted string${secret ? '' : `, got ${JSON.stringify(value)}`}`);
  }
  try {
    readEnvironment(workerVariables, vars);
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    problems.push(...error.message.split('\n'));
  }
  return problems;
}

/** Refuses a wrangler.toml in `configDir` whose [vars] the Worker would find malformed, naming each variable. */
export async function checkWranglerVars(configDir: string): Promise<void> {
  const { path, config } = await projectConfig(configDir);
  const problems = varsProblems(config.vars ?? {});
  if (problems.length > 0)
    throw new Error(
      `${path} [vars]: ${problems.join('; ')}. The deployed Worker would find the same: fix the value, or ` +
        'remove the line to leave it unset',
    );
}
