// The online client: the API over fetch, through the transport (token, cache, timeout,
// retries); API errors become ApiError, AuthError, NotFoundError or RateLimitError with the
// API's message.
import type { Suggestion } from '../contract/suggest.ts';
import type { KindId } from '../schema/kind-ids.ts';
import { ApiError, AuthError, NotFoundError, RateLimitError } from './errors.ts';
import { createTransport, type Answer, type TransportOptions } from './request.ts';
import { RATE_LIMITED, retryAfterSeconds } from './retry.ts';
import { dataClient, type Envelope, type ReleaseOption, type TreefarmData } from './types.ts';

export type ClientOptions = TransportOptions & ReleaseOption;

export function createClient(options: ClientOptions): TreefarmData {
  const transport = createTransport(options);
  const { release } = options;
  return dataClient(
    async (kind, search, callOptions) => {
      const answer = await transport(kind, { search, release }, callOptions);
      const envelope = envelopeOf(answer);
      if (answer.status === 200 && Array.isArray(envelope?.data)) return envelope.data;
      throw apiErrorOf(answer, kind, search);
    },
    async (kind, text, callOptions) => {
      const answer = await transport(`${kind}/suggest`, { search: text, release }, callOptions);
      const envelope = envelopeOf(answer);
      // Suggestions are entries of the API's own making: the type is the contract's.
      if (answer.status === 200 && Array.isArray(envelope?.data)) return envelope.data as Suggestion[];
      throw apiErrorOf(answer, kind, text);
    },
    async (callOptions) => {
      const answer = await transport('releases', {}, callOptions);
      const envelope = envelopeOf(answer);
      if (answer.status === 200 && Array.isArray(envelope?.data)) return envelope.data;
      throw apiErrorOf(answer);
    },
  );
}

export function envelopeOf({ body }: Answer): Envelope | undefined {
  const candidate = body as Partial<Envelope> | undefined;
  return typeof candidate?.message === 'string' ? (candidate as Envelope) : undefined;
}

/** The error for an answer that is not the expected 200: the API's message, or the status line. */
export function apiErrorOf(answer: Answer, kind?: KindId, search: string | null = null): ApiError {
  const { status, request, response } = answer;
  const message = envelopeOf(answer)?.message ?? `HTTP ${status} ${response.statusText}`.trim();
  const details = { request, response };
  if (status === 404 && kind !== undefined) return new NotFoundError(message, kind, search, details);
  if (status === 401) return new AuthError(message, details);
  if (status === RATE_LIMITED)
    return new RateLimitError(message, retryAfterSeconds(response.headers.get('Retry-After')), details);
  return new ApiError(message, status, details);
}
