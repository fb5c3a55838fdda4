// What the Discord app answers an interaction Discord has signed: a slash command (a record as
// an embed, the planner, the latest release), a press of one of its buttons, or the choices of
// an autocomplete. Every answer reads through the MCP tools (src/apps/mcp/tools.ts), which
// read through the API's one resolver, and every message is fitted to Discord's limits
// (limits.ts). Pure and Web-standard.
import type { APIInteractionResponse } from 'discord-api-types/v10';
import { type CommandName, commandNames, NAME_COMMANDS, RESPONSE } from './commands.ts';
import { stepOf } from './buttons.ts';
import { changesAnswer, releaseStepAnswer } from './changes.ts';
import type { RouteIndex } from '../../contract/resolve.ts';
import type { AnswerContext } from './context.ts';
import { echo } from './echo.ts';
import { planAnswer } from './plan.ts';
import { recordAnswer, stepAnswer } from './records.ts';
import { nameChoices } from './autocomplete.ts';
import { privateMessage } from './reply.ts';
import { COMMAND_LIST } from './words.ts';

export type { AnswerContext } from './context.ts';
export { privateMessage } from './reply.ts';

/** An option of a command as Discord sends it (only what is read of it). */
export interface CommandOption {
  name: string;
  value: unknown;
  focused?: boolean;
}

/** The options of a command by name; the focused one's name (an autocomplete's). */
function optionsOf(options: readonly CommandOption[]): { values: Record<string, unknown>; focused?: string } {
  const values: Record<string, unknown> = {};
  let focused: string | undefined;
  for (const option of options) {
    values[option.name] = option.value;
    if (option.focused === true) focused = option.name;
  }
  return focused === undefined ? { values } : { values, focused };
}

const isCommand = (name: string): name is CommandName => (commandNames as readonly string[]).includes(name);

/** An application command's answer. */
export function commandAnswer(
  context: AnswerContext,
  name: string,
  options: readonly CommandOption[],
): Promise<APIInteractionResponse> {
  const { values } = optionsOf(options);
  if (!isCommand(name))
    return Promise.resolve(
      privateMessage(`This app has no command ${echo(`/${name}`)}: its commands are ${COMMAND_LIST}.`),
    );
  if (name === 'plot') return recordAnswer(context, name, 'plots', values['level']);
  if (name === 'plan') return planAnswer(context, values);
  if (name === 'changes') return changesAnswer(context);
  return recordAnswer(context, name, NAME_COMMANDS[name], values['name']);
}

/** A button's press: a step to a record or a release; any other custom_id is refused privately. */
export function componentAnswer(context: AnswerContext, customId: unknown): Promise<APIInteractionResponse> {
  const step = stepOf(customId);
  if (step === undefined)
    return Promise.resolve(
      privateMessage(`This button is not one of this app's: look a record up with ${COMMAND_LIST}.`),
    );
  return 'release' in step ? releaseStepAnswer(context, step.release) : stepAnswer(context, step.kind, step.position);
}

/** An autocomplete's choices; none for a command or option that has no choices. */
export async function autocompleteAnswer(
  index: RouteIndex,
  name: string,
  options: readonly CommandOption[],
): Promise<APIInteractionResponse> {
  const { values, focused } = optionsOf(options);
  const text = values['name'];
  const choices =
    Object.hasOwn(NAME_COMMANDS, name) && focused === 'name' && typeof text === 'string'
      ? await nameChoices(index, NAME_COMMANDS[name as keyof typeof NAME_COMMANDS], text)
      : [];
  return { type: RESPONSE.choices, data: { choices } };
}
