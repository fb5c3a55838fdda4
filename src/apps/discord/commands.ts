// The Discord app's slash commands, defined once: the edge answers them (src/apps/discord) and
// `npm run discord:register` puts this very list to Discord's API (src/apps/discord/cli). Their names
// and options are fixed (docs/discord.md), so what players type and what the docs say hold.
// Types from discord-api-types (types only: nothing of it is bundled); the numbers it names
// are written here as literals, each checked against its enum member by `satisfies`.
import type {
  APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ButtonStyle,
  ComponentType,
  InteractionContextType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  RESTPutAPIApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import type { KindId } from '../../schema/kind-ids.ts';
import { MAX_SEARCH_LENGTH } from '../../contract/search-query.ts';
import type { SUGGESTION_LIMIT } from '../../contract/suggest.ts';

/** The largest request body the endpoint reads: an interaction is a few KiB. */
export const DISCORD_MAX_BODY_BYTES = 32 * 1024;
/** Discord's own limits on an answer: choices of an autocomplete, embeds of a message. */
export const MAX_CHOICES = 25 satisfies typeof SUGGESTION_LIMIT;
export const MAX_EMBEDS = 10;

export const INTERACTION = {
  ping: 1 satisfies InteractionType.Ping,
  command: 2 satisfies InteractionType.ApplicationCommand,
  component: 3 satisfies InteractionType.MessageComponent,
  autocomplete: 4 satisfies InteractionType.ApplicationCommandAutocomplete,
} as const;

export const RESPONSE = {
  pong: 1 satisfies InteractionResponseType.Pong,
  message: 4 satisfies InteractionResponseType.ChannelMessageWithSource,
  update: 7 satisfies InteractionResponseType.UpdateMessage,
  choices: 8 satisfies InteractionResponseType.ApplicationCommandAutocompleteResult,
} as const;

/** The components the app sends: rows of buttons, pressed (a custom id) or opening a link. */
export const COMPONENT = {
  row: 1 satisfies ComponentType.ActionRow,
  button: 2 satisfies ComponentType.Button,
} as const;
export const BUTTON = {
  secondary: 2 satisfies ButtonStyle.Secondary,
  link: 5 satisfies ButtonStyle.Link,
} as const;

/**
 * Where the commands can be installed and used: installed to a server (0) or by a user to their
 * account (1), and used in a server (0), in the app's DM (1) and in any DM or group DM (2).
 */
export const INTEGRATION_TYPES = [
  0 satisfies ApplicationIntegrationType.GuildInstall,
  1 satisfies ApplicationIntegrationType.UserInstall,
];
export const CONTEXTS = [
  0 satisfies InteractionContextType.Guild,
  1 satisfies InteractionContextType.BotDM,
  2 satisfies InteractionContextType.PrivateChannel,
];

/** A message only its asker sees. */
export const EPHEMERAL = (1 << 6) satisfies MessageFlags.Ephemeral;

const CHAT_INPUT = 1 satisfies ApplicationCommandType.ChatInput;
const OPTION = {
  string: 3 satisfies ApplicationCommandOptionType.String,
  integer: 4 satisfies ApplicationCommandOptionType.Integer,
  number: 10 satisfies ApplicationCommandOptionType.Number,
} as const;

/** The commands that look up one record of a kind by its name, and the kind each reads. */
export const NAME_COMMANDS = {
  tree: 'trees',
  cutter: 'cutters',
  gift: 'gifts',
  storage: 'storages',
  vehicle: 'vehicles',
} as const satisfies Record<string, KindId>;
export type NameCommand = keyof typeof NAME_COMMANDS;

const nameOption = (noun: string, example: string): APIApplicationCommandOption => ({
  type: OPTION.string,
  name: 'name',
  description: `The ${noun}'s name or alias (${example}), or its level`,
  required: true,
  autocomplete: true,
  max_length: MAX_SEARCH_LENGTH,
});
const levelOption = (description: string, required: boolean, top: number): APIApplicationCommandOption => ({
  type: OPTION.integer,
  name: 'level',
  description,
  required,
  min_value: 1,
  max_value: top,
});

/** Discord's most choices of an option. */
const MAX_OPTION_CHOICES = 25;

/** What the options are bounded by: the data's top farm level and its plots. */
export interface CommandBounds {
  /** The top farm level (the top tree's level). */
  topLevel: number;
  /** Every plot: its level and growth speed (percent). */
  plots: readonly { level: number; growthSpeed: number }[];
}

/** /plan's plot: the plots' levels as choices that say their growth speed (a bound past 25 plots). */
function plotOption({ plots }: CommandBounds): APIApplicationCommandOption {
  const description = 'The level of the plot your trees grow on (a normal plot if left out)';
  const top = Math.max(1, ...plots.map(({ level }) => level));
  if (plots.length === 0 || plots.length > MAX_OPTION_CHOICES)
    return { ...levelOption(description, false, top), name: 'plot' };
  return {
    type: OPTION.integer,
    name: 'plot',
    description,
    required: false,
    choices: plots.map(({ level, growthSpeed }) => ({
      name: `Level ${level} (${growthSpeed}% growth speed)`,
      value: level,
    })),
  };
}

const command = (name: CommandName, description: string, options: APIApplicationCommandOption[] = []) => ({
  type: CHAT_INPUT,
  name,
  description,
  ...(options.length > 0 ? { options } : {}),
  integration_types: INTEGRATION_TYPES,
  contexts: CONTEXTS,
});

/** The commands' names, in the order they are listed. */
export const commandNames = ['tree', 'cutter', 'gift', 'storage', 'vehicle', 'plot', 'plan', 'changes'] as const;
export type CommandName = (typeof commandNames)[number];

/**
 * Every command, as PUT /applications/{id}/commands takes them (a bulk overwrite: idempotent),
 * its level options bounded by the data the deployment serves.
 */
export const discordCommands = (bounds: CommandBounds) =>
  [
    command('tree', "A tree's figures: growth time, logs, log value, sapling and upgrade cost", [
      nameOption('tree', 'oak tree'),
    ]),
    command('cutter', "A cutter's figures: cooldown, cost, efficiency", [nameOption('cutter', 'axe')]),
    command('gift', "A gift's rewards: money, logs, saplings, cutters, plots, vehicles", [nameOption('gift', 'small')]),
    command('storage', "A storage's figures: cost and capacity", [nameOption('storage', 'crate')]),
    command('vehicle', "A vehicle's figures: cooldown, cost, capacity", [nameOption('vehicle', 'van')]),
    command('plot', "A plot's figures: cost and growth speed", [
      levelOption("The plot's level", true, Math.max(1, ...bounds.plots.map(({ level }) => level))),
    ]),
    command('plan', 'The best tree within reach of your level and money, and your next upgrade', [
      levelOption("Your farm's level (1 at the start)", true, bounds.topLevel),
      plotOption(bounds),
      {
        type: OPTION.number,
        name: 'money',
        description: 'In-game dollars you can spend on upgrades (no limit if left out)',
        required: false,
        min_value: 0,
      },
    ]),
    command('changes', 'The latest data release and what it changed'),
  ] satisfies RESTPutAPIApplicationCommandsJSONBody;

/** An example of each command as a player types it, for messages that say how to use one. */
export const COMMAND_EXAMPLES: Record<CommandName, string> = {
  tree: '/tree name:oak tree',
  cutter: '/cutter name:axe',
  gift: '/gift name:small',
  storage: '/storage name:crate',
  vehicle: '/vehicle name:van',
  plot: '/plot level:3',
  plan: '/plan level:10 money:1000000',
  changes: '/changes',
};
