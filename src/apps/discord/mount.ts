// /discord/interactions on the seam (src/edge/apps.ts): where Discord's interactions come, what
// the endpoint accepts, its 405, and how a runtime loads it (app.ts, by the first request for
// the path), on with DISCORD_PUBLIC_KEY alone. Its own credential (the signature), not the API's token.
import type { AppMount } from '../../edge/apps.ts';
import { DISCORD_METHODS, DISCORD_PATH, discordNotAllowed } from './bounds.ts';
import { DISCORD_MAX_BODY_BYTES } from './commands.ts';
import { type DiscordSettings, discordVariables } from './settings.ts';

export const discordMount = {
  name: 'discord',
  path: DISCORD_PATH,
  methods: DISCORD_METHODS,
  maxBodyBytes: DISCORD_MAX_BODY_BYTES,
  notAllowed: discordNotAllowed,
  statuses: [200, 400, 401, 405, 413],
  variables: discordVariables,
  loader: ({ discordPublicKey }: DiscordSettings) =>
    discordPublicKey === undefined ? undefined : async () => (await import('./app.ts')).discordApp(discordPublicKey),
} as const satisfies AppMount<DiscordSettings>;
