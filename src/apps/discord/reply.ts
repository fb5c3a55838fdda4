// How the app replies: a message in the channel (type 4), an update of the message whose
// button was pressed (type 7), or a message only the asker sees; each fitted to Discord's
// limits (limits.ts). And the MCP tools, which every answer reads through, asked as the app asks.
import type { APIInteractionResponse } from 'discord-api-types/v10';
import { EPHEMERAL, RESPONSE } from './commands.ts';
import { runTool, type ToolAnswer, ToolInputError, type ToolName, tools } from '../mcp/tools.ts';
import type { RouteIndex } from '../../contract/resolve.ts';
import { fitMessage, type Message } from './limits.ts';

/** A message in the channel, for everyone there. */
export const message = (sent: Message): APIInteractionResponse => ({ type: RESPONSE.message, data: fitMessage(sent) });

/** The pressed button's message, changed to this one. */
export const update = (sent: Message): APIInteractionResponse => ({ type: RESPONSE.update, data: fitMessage(sent) });

/** A message only its asker sees: what a miss, a refusal or an unknown request answers. */
export const privateMessage = (content: string): APIInteractionResponse => message({ content, flags: EPHEMERAL });

/** Why a tool refused: the argument (the option of the same name) and the tool's words; for the app to reword. */
export interface Refusal {
  refused: string;
  option: string | undefined;
}

/**
 * A tool's answer to the options as arguments, or its refusal: of an argument's form (its
 * schema), or of what the data refuses (a ToolInputError, "level: no farm level 500: ...").
 */
export async function ask(
  index: RouteIndex,
  name: ToolName,
  args: Record<string, unknown>,
): Promise<{ answer: ToolAnswer } | Refusal> {
  const parsed = tools[name].input.safeParse(args);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    return { refused: issue?.message ?? 'not valid', option: issue?.path[0]?.toString() };
  }
  try {
    // Whole lists: the app pages its own messages (its buttons), within Discord's limits.
    return { answer: await runTool(index, name, parsed.data, true) };
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    const [option, ...said] = error.message.split(': ');
    return said.length > 0 && option && option in args
      ? { refused: said.join(': '), option }
      : { refused: error.message, option: undefined };
  }
}
