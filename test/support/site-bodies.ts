// What the hostile tests look for in an answer: the bodies of the built site (the API's
// answers apart from the rest), API data, and workerd's own refusals (answered before any
// Worker code runs, so no answer of ours).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_DIR } from '../../src/contract/paths.ts';
import type { RawResponse } from './http.ts';
import { distDir } from './runtimes.ts';
import { filesBelow, readBuild } from './builds.ts';

/**
 * The sha256 of every answer of the API (the identity bytes of every body a route names, of
 * every scope) and of every other file of the built site.
 */
export function siteDigests(): { api: Set<string>; other: Set<string> } {
  const other = new Set<string>();
  for (const path of filesBelow(distDir)) {
    if (path.startsWith(`${API_DIR}/`)) continue;
    other.add(
      createHash('sha256')
        .update(readFileSync(join(distDir, path)))
        .digest('hex'),
    );
  }
  // The edge's fixed error bodies are answers anyone may get, not API data.
  const { answers } = readBuild(distDir);
  const api = new Set([...answers].filter(([answer]) => !answer.startsWith('_edge/')).map(([, digest]) => digest));
  return { api, other };
}

/**
 * In wrangler dev, workerd's own HTTP server answers requests it cannot parse (absolute-form,
 * asterisk-form or schemeless targets, duplicate or garbage Host, conflicting framing, unknown
 * methods) before any Worker code runs, with exactly these plain answers (workerd of November
 * 2026 sends its 500 with no body at all, and miniflare's entry worker its own TypeError); an
 * error in the Worker is the API's JSON 500 instead
 * (src/edge/failure.ts). On Cloudflare the front line parses requests.
 */
export function refusedByWorkerd(response: RawResponse): boolean {
  const plain = !('content-type' in response.headers) || /^text\/plain\b/.test(response.headers['content-type'] ?? '');
  const body = response.body.toString('latin1');
  return (
    plain &&
    !('x-data-version' in response.headers) &&
    ((response.status === 500 && (body === 'Internal Server Error' || body === '' || refusedByMiniflare(body))) ||
      (response.status === 501 && body === 'ERROR: Unrecognized request method.'))
  );
}

/**
 * miniflare 5's entry worker, in front of ours in wrangler dev, cannot make a URL of an
 * asterisk-form target ("OPTIONS *") and answers its own TypeError, its stack in its own file.
 */
const MINIFLARE_REFUSAL =
  /^TypeError: Fetch API cannot load: [^\n]*\n\s+at [^\n]*\/miniflare\/dist\/src\/workers\/core\//;
const refusedByMiniflare = (body: string): boolean => MINIFLARE_REFUSAL.test(body);

/** A JSON object with a `data` member: the shape of API data. */
export function hasData(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && 'data' in value;
  } catch {
    return false;
  }
}
