// The online client: the API over fetch, with the token in the Authorization header.
import type { KindId } from '../schema/kinds.ts';
import { ApiError, AuthError, NotFoundError } from './errors.ts';
import { dataClient, type Envelope, type ReleaseOption, type TreefarmData } from './types.ts';

export interface ClientOptions extends ReleaseOption {
  /** The site's address; the API lives below it at api/ ("https://treefarm.example"). */
  baseUrl: string | URL;
  token: string;
  /** Another fetch (a test double, a proxy-aware one); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

/** What a query asked for, so a 404 can say which search of which kind found nothing. */
interface Query {
  kind: KindId;
  search: string | null;
}

export function createClient({ baseUrl, token, release, fetch = globalThis.fetch }: ClientOptions): TreefarmData {
  // A trailing slash, so a site below a path keeps it ("https://host/game/" + "api/trees").
  const base = new URL(baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const get = async (endpoint: string, parameters: Record<string, string>, query?: Query) => {
    const url = new URL(`api/${endpoint}`, base);
    url.search = new URLSearchParams(parameters).toString();
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
    const envelope = await readEnvelope(response);
    if (response.status === 200 && Array.isArray(envelope?.data)) return envelope.data;
    const message = envelope?.message ?? `HTTP ${response.status} ${response.statusText}`.trim();
    throw errorFor(response.status, message, query);
  };
  const pin: Record<string, string> = release === undefined ? {} : { release };
  return dataClient(
    (kind, search) => get(kind, { ...(search === null ? {} : { search }), ...pin }, { kind, search }),
    () => get('releases', {}),
  );
}

async function readEnvelope(response: Response): Promise<Envelope | undefined> {
  try {
    return (await response.json()) as Envelope;
  } catch {
    return undefined;
  }
}

function errorFor(status: number, message: string, query: Query | undefined): Error {
  if (status === 404 && query) return new NotFoundError(message, query.kind, query.search);
  if (status === 401) return new AuthError(message);
  return new ApiError(message, status);
}
