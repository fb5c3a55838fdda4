// What `npm run discord:register` is told by its environment, read and checked here in one
// place: the application, its bot token, a server to register to for testing, and where
// Discord's API is (a local stand-in in the tests).
import { z } from 'zod';
import {
  documented,
  readEnvironment,
  secret,
  type ValuesOf,
  variable,
  wholeNumberFrom,
} from '../../../schema/environment.ts';

/** A Discord id (a snowflake): digits. */
const snowflake = z
  .string()
  .trim()
  .regex(/^\d{1,20}$/, 'must be a Discord id (digits, as the developer portal shows it)');

/** Discord's REST API, the version whose types the app is written against (discord-api-types/v10). */
export const DISCORD_API = 'https://discord.com/api/v10';

export const registerVariables = {
  applicationId: documented(
    variable('DISCORD_APPLICATION_ID', snowflake),
    "The Discord application's id (its General Information page): whose commands `npm run discord:register` sets.",
    'unset: required',
  ),
  botToken: secret(
    documented(
      variable('DISCORD_BOT_TOKEN', z.string().trim().min(1)),
      "The application's bot token (its Bot page): `npm run discord:register` authenticates with it.",
      'unset: required',
    ),
  ),
  guildId: documented(
    variable('DISCORD_GUILD_ID', snowflake),
    'A server (guild) id: `npm run discord:register` registers the commands to that server alone, for ' +
      'testing (install the app there first); unset, as global commands, wherever the app is installed.',
    'unset: global commands',
  ),
  apiUrl: documented(
    variable(
      'DISCORD_API_URL',
      z
        .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
        .transform((url) => url.replace(/\/+$/, '')),
      DISCORD_API,
    ),
    "Discord's REST API, for `npm run discord:register` (the tests point it at a local stand-in).",
    `\`${DISCORD_API}\``,
  ),
  timeoutSeconds: documented(
    variable('DISCORD_API_TIMEOUT', wholeNumberFrom(1, 600), 30),
    "Seconds `npm run discord:register` waits for each answer of Discord's API before it gives up.",
    '`30`',
  ),
};

export type RegisterSettings = ValuesOf<typeof registerVariables>;

/** The register command's settings (an EnvironmentError naming each bad variable). */
export const registerSettings = (env: object = process.env): RegisterSettings =>
  readEnvironment(registerVariables, env);
