// `npm run discord:register`: puts the Discord app's commands (src/apps/discord/commands.ts,
// the very list the endpoint answers, its level options bounded by the build in dist/) to
// Discord's REST API for the application, as one bulk overwrite (PUT): idempotent, so running
// it again after a change replaces the list, and a command dropped from the list is dropped
// from Discord. docs/discord.md says when to run it.
import '../../../cli/node-check.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CommandBounds, discordCommands } from '../commands.ts';
import { projectVersion } from '../../../cli/project-version.ts';
import { type CommandSpec, runMain } from '../../../cli/command-line.ts';
import { EnvironmentError } from '../../../schema/environment.ts';
import { callDiscord, DiscordApiError } from './discord-api.ts';
import { distBounds } from './dist-bounds.ts';
import { type RegisterSettings, registerSettings, registerVariables } from './settings.ts';

const { version } = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** Discord's form of a bot client's User-Agent, `DiscordBot ($url, $versionNumber)`: the app's page, this version. */
export const userAgent = (applicationId: string): string =>
  `DiscordBot (https://discord.com/application-directory/${applicationId}, ${version})`;

/** Where the commands go: the application's global commands, or one server's. */
export function commandsUrl({ apiUrl, applicationId, guildId }: RegisterSettings): string {
  const application = `${apiUrl}/applications/${applicationId}`;
  return guildId === undefined ? `${application}/commands` : `${application}/guilds/${guildId}/commands`;
}

/** Overwrites the application's commands with these; the names Discord now has. */
export async function registerCommands(
  settings: RegisterSettings,
  bounds: CommandBounds,
  onRetry?: (seconds: number, tryNumber: number) => void,
): Promise<string[]> {
  const { applicationId, botToken, guildId } = settings;
  if (applicationId === undefined || botToken === undefined)
    throw new EnvironmentError(
      'DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN must be set (the developer portal shows both; docs/discord.md)',
    );
  const registered = await callDiscord({
    method: 'PUT',
    url: commandsUrl(settings),
    token: botToken,
    userAgent: userAgent(applicationId),
    timeoutSeconds: settings.timeoutSeconds,
    body: discordCommands(bounds),
    what: 'the commands',
    forbiddenHint:
      guildId === undefined
        ? 'Missing Access: DISCORD_BOT_TOKEN is not the bot token of DISCORD_APPLICATION_ID.'
        : `Missing Access: install the app in server ${guildId} first (docs/discord.md, "Install the app"), ` +
          'or check that DISCORD_BOT_TOKEN is the bot token of DISCORD_APPLICATION_ID.',
    ...(onRetry ? { onRetry } : {}),
  });
  if (!Array.isArray(registered))
    throw new DiscordApiError(
      `Discord answered the commands with ${JSON.stringify(registered).slice(0, 80)}, not a list.`,
    );
  return registered.map((command) => String((command as { name?: unknown }).name));
}

const registerCommand: CommandSpec = {
  command: 'npm run discord:register',
  summary: "Puts the Discord app's slash commands to Discord (one bulk overwrite: run it again after a change).",
  options: {},
  variables: registerVariables,
  examples: [
    'DISCORD_APPLICATION_ID=<id> DISCORD_BOT_TOKEN=<token> DISCORD_GUILD_ID=<server> npm run discord:register',
  ],
  version: () => projectVersion(),
  userErrors: [DiscordApiError],
  failure: 'Cannot register the commands',
};

if (import.meta.main) {
  await runMain(registerCommand, async () => {
    const settings = registerSettings();
    const bounds = await distBounds(fileURLToPath(new URL('../../../../dist/', import.meta.url)));
    const names = await registerCommands(settings, bounds, (seconds, tryNumber) =>
      console.log(`Discord asked to wait (429): trying again in ${seconds} s (try ${tryNumber + 1}).`),
    );
    const where = settings.guildId === undefined ? 'wherever the app is installed' : `server ${settings.guildId}`;
    console.log(`Registered ${names.length} commands for ${where}: ${names.map((name) => `/${name}`).join(', ')}`);
    return 0;
  });
}
