// The environment variables the project reads, each with one zod rule, and how a process reads
// a set of them: every bad value is reported at once, each naming the variable and the value
// ("PORT must be a whole number from 0 to 65535, got \"abc\""; a token's value is never shown).
// The server's entry points read theirs in src/server/settings.ts; the Worker reads the token
// variables through src/edge/tokens.ts. An empty variable counts as unset.
import { z } from 'zod';

/** A variable: its name, its rule (from the text of the variable), and its value when unset. */
export interface Variable<T> {
  name: string;
  rule: z.ZodType<T, string>;
  fallback: T;
  /** A secret's value never appears in a message. */
  secret: boolean;
}

export function variable<T>(name: string, rule: z.ZodType<T, string>): Variable<T | undefined>;
export function variable<T>(name: string, rule: z.ZodType<T, string>, fallback: T): Variable<T>;
export function variable<T>(name: string, rule: z.ZodType<T, string>, fallback?: T): Variable<T | undefined> {
  return { name, rule, fallback, secret: false };
}

/** The same variable, never echoed in a message. */
export const secret = <T>(entry: Variable<T>): Variable<T> => ({ ...entry, secret: true });

export type Variables = Record<string, Variable<unknown>>;
export type ValuesOf<V extends Variables> = { [K in keyof V]: V[K] extends Variable<infer T> ? T : never };

export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
}

/**
 * The values of `variables` in `env` (process.env, or a Worker's bindings); an EnvironmentError
 * with a line per bad variable.
 */
export function readEnvironment<V extends Variables>(variables: V, env: object): ValuesOf<V> {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, { name, rule, fallback, secret: hidden }] of Object.entries(variables)) {
    const raw = (env as Record<string, unknown>)[name];
    if (typeof raw !== 'string' || raw === '') {
      values[key] = fallback;
      continue;
    }
    const result = rule.safeParse(raw);
    if (result.success) values[key] = result.data;
    else
      problems.push(
        `${name} ${result.error.issues[0]?.message ?? 'is invalid'}${hidden ? '' : `, got ${JSON.stringify(raw)}`}`,
      );
  }
  if (problems.length > 0) throw new EnvironmentError(problems.join('\n'));
  return values as ValuesOf<V>;
}

/** "a, b,,c" -> ["a", "b", "c"]: how a variable lists its entries. */
export function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A whole number from `min` to `max`, in decimal digits. */
export function wholeNumberFrom(min: number, max: number): z.ZodType<number, string> {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((value) => value >= min && value <= max, message);
}

/** A host name or IP address to listen on. */
export const hostName: z.ZodType<string, string> = z
  .string()
  .trim()
  .regex(/^[^\s/]+$/, 'must be a host name or an IP address (no spaces, scheme or path)');

/** A folder path. */
export const folderPath: z.ZodType<string, string> = z.string();

/** A comma-separated list whose entries each pass `check`; the first that fails is named by its place. */
function listOf(check: (entry: string) => boolean, problem: string): z.ZodType<string[], string> {
  return z
    .string()
    .transform(commaList)
    .superRefine((entries, context) => {
      const bad = entries.findIndex((entry) => !check(entry));
      if (bad >= 0) context.addIssue({ code: 'custom', message: `entry ${bad + 1} ${problem}` });
    });
}

/** Plaintext tokens: a header value cannot carry a control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is about exactly those characters.
export const tokenList = listOf((entry) => !/[\u0000-\u001f\u007f]/.test(entry), 'holds a control character');

/** SHA-256 digests of tokens, in lowercase hex. */
export const digestList = listOf(
  (entry) => /^[0-9a-f]{64}$/.test(entry),
  'is not 64 lowercase hex digits (a SHA-256 digest)',
);

/** The tokens the API accepts: every runtime reads them so (the Worker from its secrets). */
export const tokenVariables = {
  tokens: secret(variable('API_TOKENS', tokenList, [])),
  tokenSha256: secret(variable('API_TOKEN_SHA256', digestList, [])),
};

/** The token variables as a process's environment or a Worker's bindings hold them. */
export interface TokenSettings {
  /** Plaintext tokens, comma-separated (local and test use). */
  API_TOKENS?: string | undefined;
  /** Lowercase hex SHA-256 digests of tokens, comma-separated (deployments). */
  API_TOKEN_SHA256?: string | undefined;
}
