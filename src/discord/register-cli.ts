// `npm run discord:register`: puts the Discord app's commands (src/contract/discord/commands.ts,
// the very list the endpoint answers) to Discord's REST API for the application, as one bulk
// overwrite (PUT): idempotent, so running it again after a change replaces the list, and a
// command dropped from the list is dropped from Discord. docs/discord.md says when to run it.
import '../schema/node-check.ts';
import { DISCORD_COMMANDS } from '../contract/discord/commands.ts';
import { projectVersion } from '../contract/project-version.ts';
import { type CommandSpec, runMain } from '../schema/command-line.ts';
import { EnvironmentError } from '../schema/environment.ts';
import { type RegisterSettings, registerSettings, registerVariables } from './settings.ts';

/** Discord asks every bot client to name itself so (its API reference, "User Agent"). */
const USER_AGENT = 'DiscordBot (treefarm-data npm run discord:register, 1)';

export class RegisterError extends Error {
  override name = 'RegisterError';
}

/** Where the commands go: the application's global commands, or one server's. */
export function commandsUrl({ apiUrl, applicationId, guildId }: RegisterSettings): string {
  const application = `${apiUrl}/applications/${applicationId}`;
  return guildId === undefined ? `${application}/commands` : `${application}/guilds/${guildId}/commands`;
}

/** Overwrites the application's commands with DISCORD_COMMANDS; the names Discord now has. */
export async function registerCommands(settings: RegisterSettings): Promise<string[]> {
  if (settings.applicationId === undefined || settings.botToken === undefined)
    throw new EnvironmentError(
      'DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN must be set (the developer portal shows both; docs/discord.md)',
    );
  const url = commandsUrl(settings);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'PUT',
      headers: {
        Authorization: `Bot ${settings.botToken}`,
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
      },
      body: JSON.stringify(DISCORD_COMMANDS),
    });
  } catch (error) {
    throw new RegisterError(`could not reach ${settings.apiUrl}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let said = text.slice(0, 500);
    try {
      said = (JSON.parse(text) as { message?: string }).message ?? said;
    } catch {}
    const hint = response.status === 401 ? ' (check DISCORD_BOT_TOKEN)' : '';
    throw new RegisterError(`Discord refused the commands: ${response.status} ${said}${hint}`);
  }
  const registered = JSON.parse(text) as { name: string }[];
  return registered.map(({ name }) => name);
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
  userErrors: [RegisterError],
  failure: 'Cannot register the commands',
};

if (import.meta.main) {
  await runMain(registerCommand, async () => {
    const settings = registerSettings();
    const names = await registerCommands(settings);
    const where = settings.guildId === undefined ? 'every server the app is in' : `server ${settings.guildId}`;
    console.log(`Registered ${names.length} commands for ${where}: ${names.map((name) => `/${name}`).join(', ')}`);
    return 0;
  });
}
