// /discord/interactions on the seam (src/edge/apps.ts): the Discord app of src/apps/discord as an
// app, with the application's public key imported once. Each adapter imports this module at the
// first request for the path.
import type { App } from '../../edge/apps.ts';
import { answerDiscord, discordPublicKey } from './interactions.ts';

/** The app for the application whose public key is `publicKeyHex` (64 hex digits, checked by the settings). */
export async function discordApp(publicKeyHex: string): Promise<App> {
  const key = await discordPublicKey(publicKeyHex);
  return (request, { index }) => answerDiscord(request, index, key);
}
