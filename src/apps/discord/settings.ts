// The Discord app's setting, read alike by the Node server and the Worker (src/apps/mounts.ts
// hands it to both): the application's public key, which turns the endpoint on.
import { z } from 'zod';
import { documented, type ValuesOf, variable } from '../../schema/environment.ts';

/** The Discord app's endpoint (docs/discord.md), read alike by the Node server and the Worker. */
export const discordVariables = {
  discordPublicKey: documented(
    variable(
      'DISCORD_PUBLIC_KEY',
      z
        .string()
        .trim()
        .regex(/^[0-9a-fA-F]{64}$/, "must be the Discord application's public key: 64 hex digits"),
    ),
    "The Discord application's public key (hex, as the developer portal shows it): turns on " +
      '`POST /discord/interactions` ([discord.md](discord.md)).',
    'unset: no Discord endpoint',
  ),
};

export type DiscordSettings = ValuesOf<typeof discordVariables>;
