// The app's refusals, in Discord's words: what was wrong, the option to change (as the player
// sees it in the command), and an example of the command, never a tool's or the API's terms.
import { COMMAND_EXAMPLES, type CommandName, commandNames } from './commands.ts';
import { kindById } from '../../schema/kinds.ts';
import type { KindId } from '../../schema/kind-ids.ts';
import { MAX_SEARCH_LENGTH } from '../../contract/search-query.ts';

export const COMMAND_LIST = commandNames.map((name) => `/${name}`).join(', ');

/** A sentence's first letter in upper case. */
const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A refusal: the problem, then the option to change and an example of the command. */
export const refusal = (command: CommandName, option: string | undefined, problem: string): string =>
  `${sentence(problem.replace(/\.$/, ''))}. ` +
  (option === undefined ? '' : `Change the ${option} option: `) +
  `for example ${COMMAND_EXAMPLES[command]}.`;

export const nounOf = (kind: KindId): string => kindById(kind)?.noun ?? kind;

/** What each option takes, said when the value sent is not of that form. */
export const OPTION_FORMS: Record<string, string> = {
  name: `the name option takes a name, an alias or a level, of at most ${MAX_SEARCH_LENGTH} characters`,
  level: 'the level option takes a whole number from 1',
  plot: "the plot option takes a plot's level, a whole number from 1",
  money: 'the money option takes a number from 0',
};
