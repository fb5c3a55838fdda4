// Where the CLI's answers come from: the API (token from TREEFARM_TOKEN, address from
// --url or TREEFARM_URL) or an offline bundle (--bundle). One interface for both.
import { LOCAL_ORIGIN } from '../../contract/paths.ts';
import type { KindId } from '../../schema/kind-ids.ts';
import { openBundle } from '../bundle.ts';
import { apiErrorOf, createClient, envelopeOf } from '../online.ts';
import { createTransport, type TransportOptions } from '../request.ts';
import type { TreefarmData } from '../types.ts';
import { UsageError } from './args.ts';

export interface Source {
  records(kind: KindId, search: string | null): Promise<unknown[]>;
  suggest(kind: KindId, text: string): Promise<unknown[]>;
  releases(): Promise<unknown[]>;
}

export interface SourceSettings {
  bundle: string | undefined;
  url: string | undefined;
  env: Record<string, string | undefined>;
}

export async function openSource({ bundle, url, env }: SourceSettings): Promise<Source> {
  if (bundle !== undefined) return offlineSource(bundle);
  const token = env['TREEFARM_TOKEN'];
  if (!token)
    throw new UsageError('TREEFARM_TOKEN is not set: export the API token, or answer offline with --bundle <file>');
  const baseUrl = url ?? env['TREEFARM_URL'] ?? LOCAL_ORIGIN;
  if (!URL.canParse(baseUrl)) throw new UsageError(`the API address is not a URL: ${baseUrl}`);
  // A command line makes one request: nothing to cache, and a person waits for it.
  return onlineSource({ baseUrl, token, cache: false, timeout: 15_000 });
}

function onlineSource(options: TransportOptions): Source {
  const client = createClient(options);
  const transport = createTransport(options);
  // suggest and releases through the transport: the same token, timeout and retries.
  const list = async (path: string, search?: string) => {
    const answer = await transport(path, search === undefined ? {} : { search });
    const data = envelopeOf(answer)?.data;
    if (answer.status === 200 && Array.isArray(data)) return data;
    throw apiErrorOf(answer);
  };
  return {
    records: (kind, search) => recordsOf(client, kind, search),
    suggest: (kind, text) => list(`${kind}/suggest`, text),
    releases: () => list('releases'),
  };
}

async function offlineSource(file: string): Promise<Source> {
  const data = await openBundle(file);
  const notInBundles = (what: string) => () =>
    Promise.reject(new UsageError(`${what} come from the API only; a bundle holds one release's records`));
  return {
    records: (kind, search) => recordsOf(data, kind, search),
    suggest: notInBundles('suggestions'),
    releases: notInBundles('releases'),
  };
}

const recordsOf = (data: TreefarmData, kind: KindId, search: string | null): Promise<unknown[]> => data[kind](search);
