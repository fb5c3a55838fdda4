// The oldest Node the project's commands run on: the first to strip TypeScript's types by
// default and to have import.meta.main (22.18 and 24.2). package.json's engines names it.
export const MINIMUM_NODE = '22.18.0';

const numbers = (version: string) => version.replace(/^v/, '').split('.').map(Number);

/** Whether `version` is `minimum` or later (both `major.minor.patch`). */
export function atLeast(version: string, minimum: string): boolean {
  const [have, want] = [numbers(version), numbers(minimum)];
  for (let part = 0; part < 3; part += 1) {
    const difference = (have[part] ?? 0) - (want[part] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

/** Why a command cannot run on this Node, or undefined when it can. */
export function nodeProblem(
  version: string,
  {
    minimum,
    command,
    features = [],
    advice = 'Install a newer Node.',
  }: { minimum: string; command: string; features?: readonly [string, boolean][]; advice?: string },
): string | undefined {
  const missing = features.filter(([, present]) => !present).map(([name]) => name);
  if (atLeast(version, minimum) && missing.length === 0) return undefined;
  const lacking = missing.length > 0 ? ` (it lacks ${missing.join(' and ')})` : '';
  return `${command} needs Node ${minimum} or later; this is Node ${version}${lacking}. ${advice}`;
}
