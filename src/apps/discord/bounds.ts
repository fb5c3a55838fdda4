// Where Discord's interactions come and how they come: POST alone, a 405 otherwise, which the
// bridges answer before the app is loaded and the app itself alike.
import { CACHE_ERROR, JSON_CONTENT_TYPE } from '../../contract/headers.ts';
import { errorBody } from '../../contract/messages.ts';

/** The Discord app's interactions endpoint, when DISCORD_PUBLIC_KEY is set: signed, no token. */
export const DISCORD_PATH = '/discord/interactions';

/** The methods the endpoint answers. */
export const DISCORD_METHODS = 'POST';

/** The headers of the endpoint's own errors. */
export const DISCORD_ERROR_HEADERS = { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': CACHE_ERROR } as const;

/** The 405 of a method other than POST. */
export const discordNotAllowed = (method: string): Response =>
  new Response(errorBody(`Method ${method} not allowed: Discord POSTs interactions here.`), {
    status: 405,
    headers: { ...DISCORD_ERROR_HEADERS, Allow: DISCORD_METHODS },
  });
