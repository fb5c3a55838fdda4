// Where the CLI's answers come from: the API (token from TREEFARM_TOKEN, address from
// --url or TREEFARM_URL) or an offline bundle (--bundle). One interface for both.
import { LOCAL_ORIGIN } from '../../contract/paths.ts';
import type { KindId } from '../../schema/kind-ids.ts';
import { openBundle } from '../bundle.ts';
import { economics } from '../economics.ts';
import { createClient } from '../online.ts';
import type { TreefarmData } from '../types.ts';
import { UsageError } from './args.ts';

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
  env: Record<string, string | undefined>;
}

export async function openSource({ bundle, url, env }: SourceSettings): Promise<Source> {
  if (bundle !== undefined) return sourceOf(await openBundle(bundle));
  const token = env['TREEFARM_TOKEN'];
  if (!token)
    throw new UsageError('TREEFARM_TOKEN is not set: export the API token, or answer offline with --bundle <file>');
  const baseUrl = url ?? env['TREEFARM_URL'] ?? LOCAL_ORIGIN;
  if (!URL.canParse(baseUrl)) throw new UsageError(`the API address is not a URL: ${baseUrl}`);
  // A command line makes one request: nothing to cache, and a person waits for it.
  return sourceOf(createClient({ baseUrl, token, cache: false, timeout: 15_000 }));
}

/** The CLI's commands over either client: both answer every command alike. */
function sourceOf(data: TreefarmData): Source {
  return {
    records: (kind, search) => data[kind](search),
    suggest: (kind, text) => data.suggest(kind, text),
    releases: () => data.releases(),
    economics: (plot) => economics(data, { plot }),
  };
}
