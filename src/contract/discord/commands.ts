// The Discord app's slash commands, defined once: the edge answers them (src/edge/discord) and
// `npm run discord:register` puts this very list to Discord's API (src/discord). Their names
// and options are fixed (docs/discord.md), so what players type and what the docs say hold.
// Types from discord-api-types (types only: nothing of it is bundled); the numbers it names
// are written here as literals, each checked against its enum member by `satisfies`.
import type {
  APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  RESTPutAPIApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import type { KindId } from '../../schema/kind-ids.ts';
import { MAX_SEARCH_LENGTH } from '../search-query.ts';
import type { SUGGESTION_LIMIT } from '../suggest.ts';

/** The largest request body the endpoint reads: an interaction is a few KiB. */
export const DISCORD_MAX_BODY_BYTES = 32 * 1024;
/** Discord's own limits on an answer: choices of an autocomplete, embeds of a message. */
export const MAX_CHOICES = 25 satisfies typeof SUGGESTION_LIMIT;
export const MAX_EMBEDS = 10;

export const INTERACTION = {
  ping: 1 satisfies InteractionType.Ping,
  command: 2 satisfies InteractionType.ApplicationCommand,
  autocomplete: 4 satisfies InteractionType.ApplicationCommandAutocomplete,
} as const;

export const RESPONSE = {
  pong: 1 satisfies InteractionResponseType.Pong,
  message: 4 satisfies InteractionResponseType.ChannelMessageWithSource,
  choices: 8 satisfies InteractionResponseType.ApplicationCommandAutocompleteResult,
} as const;

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
const levelOption = (description: string, required: boolean): APIApplicationCommandOption => ({
  type: OPTION.integer,
  name: 'level',
  description,
  required,
  min_value: 1,
});

const command = (name: string, description: string, options: APIApplicationCommandOption[] = []) => ({
  type: CHAT_INPUT,
  name,
  description,
  ...(options.length > 0 ? { options } : {}),
});

/** Every command, as PUT /applications/{id}/commands takes them (a bulk overwrite: idempotent). */
export const DISCORD_COMMANDS = [
  command('tree', "A tree's figures: growth time, logs, log value, sapling and upgrade cost", [
    nameOption('tree', 'oak tree'),
  ]),
  command('cutter', "A cutter's figures: cooldown, cost, efficiency", [nameOption('cutter', 'axe')]),
  command('gift', "A gift's rewards: money, logs, saplings, cutters, plots, vehicles", [nameOption('gift', 'small')]),
  command('storage', "A storage's figures: cost and capacity", [nameOption('storage', 'crate')]),
  command('vehicle', "A vehicle's figures: cooldown, cost, capacity", [nameOption('vehicle', 'van')]),
  command('plot', "A plot's figures: cost and growth speed", [levelOption("The plot's level", true)]),
  command('plan', 'The best tree within reach of your level and money, and your next upgrade', [
    levelOption("Your farm's level (1 at the start)", true),
    { ...levelOption('The level of the plot your trees grow on (a normal plot if left out)', false), name: 'plot' },
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

export type CommandName = (typeof DISCORD_COMMANDS)[number]['name'];
export const commandNames: readonly string[] = DISCORD_COMMANDS.map(({ name }) => name);
