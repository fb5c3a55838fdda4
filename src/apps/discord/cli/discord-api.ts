// One call to Discord's REST API as its documentation asks a client to make it: named by a
// User-Agent of its form, given up after a timeout, retried after a 429 when Discord says to
// (retry_after, a bounded number of times), and every refusal said in words a developer can
// act on: the field paths of a 400's error tree, a hint for 401 and 403, a body that is not JSON.
import { isJsonObject } from '../../../contract/json-object.ts';

export class DiscordApiError extends Error {
  override name = 'DiscordApiError';
}

/** How many times a call is made at most when Discord keeps answering 429. */
export const MAX_TRIES = 5;
/** The longest retry_after waited for; a longer one is reported instead. */
export const MAX_RETRY_AFTER_SECONDS = 60;

export interface CallOptions {
  method: 'PUT' | 'GET';
  url: string;
  token: string;
  userAgent: string;
  timeoutSeconds: number;
  body?: unknown;
  /** What the call is, for messages ("the commands"). */
  what: string;
  /** Told of each wait after a 429 (the command prints it). */
  onRetry?: (seconds: number, tryNumber: number) => void;
  /** For a 403: what is most likely missing. */
  forbiddenHint: string;
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** A body's JSON, or undefined for one that is not JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The start of a body that is not JSON, as a message quotes it. */
const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * The lines of an `errors` tree: each error at its field path ("0.options.1.description" read
 * as `[0].options[1].description`), with Discord's message and code.
 */
export function errorLines(tree: unknown, path = ''): string[] {
  if (!isJsonObject(tree)) return [];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (key === '_errors' && Array.isArray(value)) {
      for (const error of value) {
        const { message, code } = isJsonObject(error) ? error : {};
        lines.push(`${path || '(the body)'}: ${String(message ?? 'invalid')}${code ? ` (${String(code)})` : ''}`);
      }
      continue;
    }
    lines.push(...errorLines(value, /^\d+$/.test(key) ? `${path}[${key}]` : path ? `${path}.${key}` : key));
  }
  return lines;
}

/** What a refusal says: Discord's status, message and code, the fields it names, and a hint. */
function refusalOf(status: number, body: unknown, text: string, options: CallOptions): string {
  const { message, code, errors } = isJsonObject(body) ? body : {};
  const said = typeof message === 'string' ? message : `a body that is not Discord's error JSON: ${quoted(text)}`;
  const lines = [
    `Discord refused ${options.what}: ${status} ${said}${code === undefined ? '' : ` (code ${String(code)})`}`,
  ];
  lines.push(...errorLines(errors).map((line) => `  ${line}`));
  if (status === 401) lines.push('  Check DISCORD_BOT_TOKEN: the Bot page shows it once, after Reset Token.');
  if (status === 403) lines.push(`  ${options.forbiddenHint}`);
  return lines.join('\n');
}

/** How long a 429 asks to wait (retry_after, or Retry-After), in seconds; undefined when it does not say. */
function retryAfterOf(response: Response, body: unknown): number | undefined {
  const said = isJsonObject(body) ? body['retry_after'] : undefined;
  const seconds = typeof said === 'number' ? said : Number(response.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** Calls Discord's API; its JSON answer, or a DiscordApiError saying what went wrong. */
export async function callDiscord(options: CallOptions): Promise<unknown> {
  const { method, url, token, userAgent, timeoutSeconds, body, what } = options;
  for (let tryNumber = 1; ; tryNumber++) {
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: {
          Authorization: `Bot ${token}`,
          'User-Agent': userAgent,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutSeconds * 1000),
      });
      text = await response.text();
    } catch (error) {
      const reason = error as Error;
      if (reason.name === 'TimeoutError')
        throw new DiscordApiError(
          `Discord's API (${url}) did not answer within ${timeoutSeconds} s; nothing was changed that it ` +
            'confirmed. Check the network (and DISCORD_API_URL), then run it again: it is safe to repeat.',
        );
      throw new DiscordApiError(`Could not reach Discord's API (${url}): ${reason.message}`);
    }
    const json = jsonOf(text);
    if (response.status === 429) {
      const wait = retryAfterOf(response, json);
      if (wait === undefined || wait > MAX_RETRY_AFTER_SECONDS || tryNumber >= MAX_TRIES)
        throw new DiscordApiError(
          `Discord is rate limiting ${what} (429${wait === undefined ? '' : `, retry after ${wait} s`}) after ` +
            `${tryNumber} tr${tryNumber === 1 ? 'y' : 'ies'}: run it again later.`,
        );
      options.onRetry?.(wait, tryNumber);
      await pause(wait);
      continue;
    }
    if (!response.ok) throw new DiscordApiError(refusalOf(response.status, json, text, options));
    if (json === undefined)
      throw new DiscordApiError(
        `Discord's API answered ${response.status} with a body that is not JSON ` +
          `(${response.headers.get('content-type') ?? 'no Content-Type'}): ${quoted(text)}. ` +
          "Is DISCORD_API_URL Discord's API?",
      );
    return json;
  }
}
