// Where the CLI's answers come from: the API (token from TREEFARM_TOKEN, address from
// --url or TREEFARM_URL) or an offline bundle (--bundle), checked against its published
// SHA-256 when there is one to check: --sha256, or with --url the site's. One interface for both.
import { basename } from 'node:path';
import { z } from 'zod';
import { LOCAL_ORIGIN } from '../../contract/paths.ts';
import { CommandError } from '../../cli/command-line.ts';
import { documented, readEnvironment, variable } from '../../schema/environment.ts';
import type { KindId } from '../../schema/kind-ids.ts';
import { openBundle } from '../bundle.ts';
import { publishedSha256 } from '../digest.ts';
import { economics } from '../economics.ts';
import { createClient } from '../online.ts';
import type { TreefarmData } from '../types.ts';
import { UsageError } from './args.ts';

/** How long a person waits for the site, in milliseconds. */
const TIMEOUT = 15_000;

export interface Source {
  records(kind: KindId, search: string | null): Promise<unknown[]>;
  suggest(kind: KindId, text: string): Promise<unknown[]>;
  releases(): Promise<unknown[]>;
  /** Every tree's economics on the plot of that level (a normal plot when undefined). */
  economics(plot: number | undefined): Promise<unknown[]>;
}

export interface SourceSettings {
  bundle: string | undefined;
  url: string | undefined;
  sha256: string | undefined;
  env: Record<string, string | undefined>;
}

/** The variables the `treefarm` command reads. */
export const cliVariables = {
  token: documented(
    variable('TREEFARM_TOKEN', z.string()),
    'The API token the `treefarm` command sends (needed unless it answers from `--bundle`).',
    'none',
  ),
  site: documented(
    variable('TREEFARM_URL', z.string(), LOCAL_ORIGIN),
    'The site of the API the `treefarm` command asks (`--url` wins).',
  ),
};

export async function openSource({ bundle, url, sha256, env }: SourceSettings): Promise<Source> {
  if (bundle !== undefined)
    return sourceOf(await openBundle(bundle, { sha256: await expectedDigest(bundle, url, sha256) }));
  const { token, site } = readEnvironment(cliVariables, env);
  if (token === undefined)
    throw new CommandError('TREEFARM_TOKEN is not set: export the API token, or answer offline with --bundle <file>');
  const baseUrl = siteUrl(url ?? site);
  // A command line makes one request: nothing to cache, and a person waits for it.
  return sourceOf(createClient({ baseUrl, token, cache: false, timeout: TIMEOUT }));
}

/** The SHA-256 the bundle must have: --sha256, else with --url what the site publishes for its file name. */
export async function expectedDigest(bundle: string, url: string | undefined, sha256: string | undefined) {
  // Only an explicit --url goes online: with TREEFARM_URL alone, --bundle stays offline.
  if (sha256 !== undefined || url === undefined) return sha256;
  return publishedSha256(siteUrl(url), basename(bundle), { signal: AbortSignal.timeout(TIMEOUT) });
}

/**
 * The site of the API, as a user may give it: the site itself, or its API's address (`…/api`,
 * which the API's own pages show), whose endpoints the client adds to the site.
 */
function siteUrl(address: string): string {
  const url = URL.parse(address);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError(`the API address is not an http(s) URL: ${address}; give the site, such as ${LOCAL_ORIGIN}`);
  url.pathname = url.pathname.replace(/\/api\/?$/, '/');
  return url.href.replace(/\/$/, '');
}

/** The site --url or TREEFARM_URL names (the local server's by default). */
export const siteOf = (url: string | undefined, env: Record<string, string | undefined>): string =>
  siteUrl(url ?? readEnvironment(cliVariables, env).site);

/** The origin of the site the data is from (--url, else TREEFARM_URL): where its wiki links point. */
export const siteOrigin = (url: string | undefined, env: Record<string, string | undefined>): string =>
  new URL(siteOf(url, env)).origin;

/** The CLI's commands over either client: both answer every command alike. */
function sourceOf(data: TreefarmData): Source {
  return {
    records: (kind, search) => data[kind](search),
    suggest: (kind, text) => data.suggest(kind, text),
    releases: () => data.releases(),
    economics: (plot) => economics(data, { plot }),
  };
}
