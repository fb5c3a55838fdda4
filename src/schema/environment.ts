// The environment variables the project reads, each with one zod rule, and how a process reads
// a set of them: every bad value is reported at once, each naming the variable and the value
// ("PORT must be a whole number from 0 to 65535, got \"abc\""; a token's value is never shown).
// The server's entry points read theirs in src/server/settings.ts, the Worker all of its own in
// src/worker/settings.ts. An empty variable counts as unset.
import { z } from 'zod';

/** A variable: its name, its rule (from the text of the variable), and its value when unset. */
export interface Variable<T> {
  name: string;
  rule: z.ZodType<T, string>;
  fallback: T;
  /** A secret's value never appears in a message. */
  secret: boolean;
  /** What it sets, in a sentence: docs/configuration.md is made from these. */
  description: string;
  /** The default as the docs show it, where the fallback's own value would mislead (a path on this machine). */
  shownDefault?: string;
}

export function variable<T>(name: string, rule: z.ZodType<T, string>): Variable<T | undefined>;
export function variable<T>(name: string, rule: z.ZodType<T, string>, fallback: T): Variable<T>;
export function variable<T>(name: string, rule: z.ZodType<T, string>, fallback?: T): Variable<T | undefined> {
  return { name, rule, fallback, secret: false, description: '' };
}

/** The same variable, never echoed in a message. */
export const secret = <T>(entry: Variable<T>): Variable<T> => ({ ...entry, secret: true });

/** The same variable with what it sets, and how its default reads in the docs when its value would not do. */
export const documented = <T>(entry: Variable<T>, description: string, shownDefault?: string): Variable<T> => ({
  ...entry,
  description,
  ...(shownDefault === undefined ? {} : { shownDefault }),
});

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

/**
 * A comma-separated list whose entries each pass `problemOf` (undefined: fine); the first that
 * fails is named by its place.
 */
function listOf(problemOf: (entry: string) => string | undefined): z.ZodType<string[], string> {
  return z
    .string()
    .transform(commaList)
    .superRefine((entries, context) => {
      for (const [index, entry] of entries.entries()) {
        const problem = problemOf(entry);
        if (problem === undefined) continue;
        context.addIssue({ code: 'custom', message: `entry ${index + 1} ${problem}` });
        return;
      }
    });
}

/**
 * A token's name, in `name:token` and `name:digest` entries: what the access log shows for it.
 * Letters, digits, `_`, `.` and `-`, at most 64; so a plaintext token with a colon needs a name.
 */
export const TOKEN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const TOKEN_NAME_RULE = 'letters, digits, _ . and - (at most 64)';

/** An entry of API_TOKENS or API_TOKEN_SHA256: `value` or `name:value`. */
export interface TokenEntry {
  name: string | undefined;
  value: string;
}

/** Splits `name:value` at its first colon; an entry without one has no name. */
export function tokenEntry(entry: string): TokenEntry {
  const colon = entry.indexOf(':');
  return colon < 0 ? { name: undefined, value: entry } : { name: entry.slice(0, colon), value: entry.slice(colon + 1) };
}

/** What is wrong with an entry's name, if anything. */
const nameProblem = (name: string | undefined, what: string) =>
  name === undefined || TOKEN_NAME.test(name)
    ? undefined
    : `has a name that is not ${TOKEN_NAME_RULE} (an entry is ${what} or name:${what})`;

/** Plaintext tokens, each `token` or `name:token` (so a token with a colon needs a name). */
export const tokenList = listOf((entry) => {
  const { name, value } = tokenEntry(entry);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a header value cannot carry one.
  if (/[\u0000-\u001f\u007f]/.test(entry)) return 'holds a control character';
  if (value === '') return 'has a name but no token';
  return nameProblem(name, 'token');
});

/** SHA-256 digests of tokens in lowercase hex, each `digest` or `name:digest`. */
export const digestList = listOf((entry) => {
  const { name, value } = tokenEntry(entry);
  if (!/^[0-9a-f]{64}$/.test(value)) return 'is not 64 lowercase hex digits (a SHA-256 digest)';
  return nameProblem(name, 'digest');
});

/** The windows Cloudflare's rate limiting binding supports, so both runtimes take the same settings. */
export const RATE_LIMIT_WINDOWS = [10, 60] as const;
export type RateLimitWindow = (typeof RATE_LIMIT_WINDOWS)[number];

export interface RateLimit {
  /** Requests a token (or, without a valid one, a client address) may make per window. */
  requests: number;
  /** The window's length in seconds. */
  seconds: RateLimitWindow;
}

/** The variable that configures the limit, in both runtimes. */
export const RATE_LIMIT_VARIABLE = 'API_RATE_LIMIT';

const RATE_LIMIT_FORM = /^([1-9]\d{0,8})\/(\d+)s$/;

/** What is wrong with a value that is not a limit (after the variable's name). */
export const RATE_LIMIT_FORM_PROBLEM =
  'must be <requests>/<seconds>s, requests a whole number from 1 to 999999999 ' +
  `and seconds ${RATE_LIMIT_WINDOWS.join(' or ')} (such as 100/60s)`;

/**
 * The limit an API_RATE_LIMIT value states: "100/60s" is 100 requests per 60 seconds; unset
 * or empty is no limit. Anything else is a RangeError naming the variable and the value.
 */
export function parseRateLimit(value: string | undefined): RateLimit | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  const match = RATE_LIMIT_FORM.exec(text);
  const seconds = RATE_LIMIT_WINDOWS.find((window) => String(window) === match?.[2]);
  if (!match || seconds === undefined)
    throw new RangeError(`${RATE_LIMIT_VARIABLE} ${RATE_LIMIT_FORM_PROBLEM}, got "${value}"`);
  return { requests: Number(match[1]), seconds };
}

/** API_RATE_LIMIT: `<requests>/<seconds>s`. */
export const rateLimitRule: z.ZodType<RateLimit, string> = z.string().transform((value, context) => {
  try {
    const limit = parseRateLimit(value);
    if (limit) return limit;
  } catch {
    // Reported below, in the variable's own words.
  }
  context.addIssue({ code: 'custom', message: RATE_LIMIT_FORM_PROBLEM });
  return z.NEVER;
});

const ON = new Set(['on', 'true', '1', 'yes']);
const OFF = new Set(['off', 'false', '0', 'no']);

/** A switch: `on` or `off` (also true/false, 1/0, yes/no), in any letter case. */
export const onOff: z.ZodType<boolean, string> = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ON.has(value) || OFF.has(value), 'must be on or off')
  .transform((value) => ON.has(value));

/** The API's rate limit, read alike by the Node server and the Worker. */
export const rateLimitVariables = {
  rateLimit: documented(
    variable(RATE_LIMIT_VARIABLE, rateLimitRule),
    'The rate limit, `<requests>/<seconds>s` (seconds 10 or 60): per token, or per client address without a ' +
      'valid one ([limits.md](limits.md#rate-limits)). On Cloudflare it also needs the `[[ratelimits]]` binding.',
    'no limit',
  ),
};

/** Where the Node server answers `/metrics`: an address and port of its own, never the API's. */
export interface MetricsAddress {
  host: string;
  port: number;
}

/** METRICS: `off` (or 0), a port (on 127.0.0.1), or `host:port` (`[v6]:port`). */
const metricsAddress: z.ZodType<MetricsAddress | undefined, string> = z
  .string()
  .trim()
  .transform((value, context) => {
    if (value === '' || OFF.has(value.toLowerCase())) return undefined;
    const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^\s/:[\]]+):)?(\d{1,5})$/.exec(value);
    const port = Number(match?.[2]);
    if (!match || port > 65535) {
      context.addIssue({ code: 'custom', message: 'must be off, a port, or host:port (such as 127.0.0.1:9464)' });
      return z.NEVER;
    }
    return { host: match[1]?.replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1', port };
  });

/** The Node server's Prometheus metrics: off unless the operator names where they are served. */
export const metricsVariables = {
  metrics: documented(
    variable('METRICS', metricsAddress),
    'Prometheus metrics at `/metrics` on an address of their own: a port (on 127.0.0.1) or `host:port`; never on ' +
      "the API's port. Anyone who reaches it sees the traffic ([running.md](running.md#metrics)).",
    'off',
  ),
};

/** The tokens the API accepts: every runtime reads them so (the Worker from its secrets). */
export const tokenVariables = {
  tokens: secret(
    documented(
      variable('API_TOKENS', tokenList, []),
      'Plaintext API tokens, comma-separated, each `token` or `name:token` (local use and tests).',
      'none: a local server makes one up and prints it',
    ),
  ),
  tokenSha256: secret(
    documented(
      variable('API_TOKEN_SHA256', digestList, []),
      'SHA-256 digests of API tokens in lowercase hex, comma-separated, each `digest` or `name:digest` ' +
        '(deployments; `npm run token` makes one).',
      'none',
    ),
  ),
};

/** The token variables as a process's environment or a Worker's bindings hold them. */
export interface TokenSettings {
  /** Plaintext tokens, comma-separated (local and test use). */
  API_TOKENS?: string | undefined;
  /** Lowercase hex SHA-256 digests of tokens, comma-separated (deployments). */
  API_TOKEN_SHA256?: string | undefined;
}
