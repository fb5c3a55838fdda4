// /discord/interactions on node:http: the Discord app (src/edge/discord), loaded at the first
// request to it, with the application's public key imported once. The body is read (bounded)
// from its first byte as /mcp's is (mcp-exchange.ts), and handed over as a Web Request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DISCORD_MAX_BODY_BYTES } from '../contract/discord/commands.ts';
import type { RouteIndex } from '../contract/resolve.ts';
import { type PendingBody, readMcpBody, webRequest, writeAnswer } from './mcp-exchange.ts';

/** Answers one request to the endpoint; the number of body bytes sent, for the log. */
export type DiscordExchange = (
  request: IncomingMessage,
  response: ServerResponse,
  body: PendingBody,
  index: RouteIndex,
  /** The origin the request came to (publicOrigin): the app's links point there. */
  origin: string,
) => Promise<number>;

/** The endpoint for the application whose public key is `publicKeyHex` (checked by the settings). */
export function discordExchange(publicKeyHex: string): DiscordExchange {
  let app: ReturnType<typeof loadApp> | undefined;
  return async (request, response, body, index, origin) => {
    app ??= loadApp(publicKeyHex).catch((error: unknown) => {
      app = undefined;
      throw error;
    });
    const { answerDiscord, key } = await app;
    const answer = await answerDiscord(await webRequest(request, body, DISCORD_MAX_BODY_BYTES, origin), index, key);
    return writeAnswer(request, response, answer);
  };
}

async function loadApp(publicKeyHex: string) {
  const { answerDiscord, discordPublicKey } = await import('../edge/discord/interactions.ts');
  return { answerDiscord, key: await discordPublicKey(publicKeyHex) };
}

/** Starts reading a request's body for the endpoint, bounded as it bounds it. */
export const readDiscordBody = (request: IncomingMessage, response: ServerResponse): PendingBody =>
  readMcpBody(request, response, DISCORD_MAX_BODY_BYTES);
