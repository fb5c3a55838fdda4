// The online client: the API over fetch, with the token in the Authorization header.
import type { Suggestion } from '../contract/suggest.ts';
import type { KindId } from '../schema/kinds.ts';
import { ApiError, AuthError, NotFoundError } from './errors.ts';
import { dataClient, type Envelope, type TreefarmData } from './types.ts';

export interface ClientOptions {
  /** The site's address; the API lives below it at api/ ("https://treefarm.example"). */
  baseUrl: string | URL;
  token: string;
  /** Another fetch (a test double, a proxy-aware one); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

export function createClient({ baseUrl, token, fetch = globalThis.fetch }: ClientOptions): TreefarmData {
  // A trailing slash, so a site below a path keeps it ("https://host/game/" + "api/trees").
  const base = new URL(baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  /** The records of a 200 answer from `path` below the API; an error for any other answer. */
  const request = async (kind: KindId, path: string, search: string | null): Promise<unknown[]> => {
    const url = new URL(`api/${path}`, base);
    if (search !== null) url.search = new URLSearchParams({ search }).toString();
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
    const envelope = await readEnvelope(response);
    if (response.status === 200 && Array.isArray(envelope?.data)) return envelope.data;
    throw errorFor(
      response.status,
      envelope?.message ?? `HTTP ${response.status} ${response.statusText}`.trim(),
      kind,
      search,
    );
  };
  return dataClient(
    (kind, search) => request(kind, kind, search),
    async (kind, text) => (await request(kind, `${kind}/suggest`, text)) as Suggestion[],
  );
}

async function readEnvelope(response: Response): Promise<Envelope | undefined> {
  try {
    return (await response.json()) as Envelope;
  } catch {
    return undefined;
  }
}

function errorFor(status: number, message: string, kind: KindId, search: string | null): Error {
  if (status === 404) return new NotFoundError(message, kind, search);
  if (status === 401) return new AuthError(message);
  return new ApiError(message, status);
}
