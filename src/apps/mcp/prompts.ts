// The MCP prompts: what an assistant user picks from a menu to start a conversation on the
// data (plan my farm, compare two records, what changed), each answered with the tools' own
// answers embedded, so the model starts from the data rather than from memory. Arguments come
// as text (the protocol's prompt arguments are strings) and are checked by the tools' schemas;
// completion offers their values from the data (the API's suggestion index).
import { kindById, kindIds, type KindId } from '../../schema/kinds.ts';
import type { RouteIndex } from '../../contract/resolve.ts';
import { classifyText } from '../../contract/search-query.ts';
import { readRecordResource, RESOURCE_SCHEME, slugsStarting } from './resources.ts';
import { runTool, suggestions, ToolInputError } from './tool-answers.ts';
import { argumentIssues, given, type ToolName, tools } from './tool-schemas.ts';

/** A prompt's argument, as prompts/list gives it. */
interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export const prompts = {
  plan_farm: {
    title: 'Plan my farm',
    description:
      'Which tree to grow now and which upgrade to buy next, from a farm level and the money to spend: the ' +
      "planner's ranking by profit per hour, with the upgrade's payback.",
    arguments: [
      { name: 'level', description: "The farm's level (1 at the start).", required: true },
      { name: 'money', description: 'In-game dollars to spend on upgrades; none for no limit.', required: false },
      {
        name: 'plot',
        description: 'The level of the plot the trees grow on; none for a normal plot.',
        required: false,
      },
    ],
  },
  compare_records: {
    title: 'Compare two records',
    description:
      'Two records of one kind side by side (two trees, or two vehicles): their published figures, and which ' +
      'is better for what; a name is found as find_record finds it (the one nearest name when none is named so).',
    arguments: [
      { name: 'kind', description: `The kind of both: ${kindIds.join(', ')}.`, required: true },
      { name: 'first', description: 'The first record: its name, alias or level.', required: true },
      { name: 'second', description: 'The second record: its name, alias or level.', required: true },
    ],
  },
  whats_new: {
    title: "What's new in the data",
    description: 'The data releases and what each added, removed and changed, to sum up for a player.',
    arguments: [
      { name: 'since', description: 'A release id: only the releases after it; none for all.', required: false },
    ],
  },
} as const satisfies Record<string, { title: string; description: string; arguments: readonly PromptArgument[] }>;

export type PromptName = keyof typeof prompts;
export const promptNames = Object.keys(prompts) as PromptName[];
export const isPromptName = (name: string): name is PromptName => Object.hasOwn(prompts, name);
/** What a prompt's name must be, after the field that gave `name`: a JSON-RPC error -32602 says it. */
export const promptNameFault = (name: unknown) => `must be one of ${promptNames.join(', ')}, got ${given(name)}`;

/** A prompt's arguments that do not fit it (a JSON-RPC error -32602 names them). */
export class PromptArgumentError extends Error {
  override name = 'PromptArgumentError';
}

type Content =
  | { type: 'text'; text: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; text: string } };
export type PromptAnswer = {
  description: string;
  messages: { role: 'user'; content: Content }[];
};

/** The prompts as prompts/list gives them. */
export const promptList = () =>
  promptNames.map((name) => ({
    name,
    title: prompts[name].title,
    description: prompts[name].description,
    arguments: prompts[name].arguments.map((each) => ({ ...each })),
  }));

const userText = (text: string) => ({ role: 'user' as const, content: { type: 'text' as const, text } });

/** A tool's answer to a prompt's arguments; refused arguments are a PromptArgumentError naming them. */
async function toolAnswer(index: RouteIndex, prompt: PromptName, name: ToolName, args: object) {
  const input = tools[name].input;
  const parsed = input.safeParse(args);
  if (!parsed.success)
    throw new PromptArgumentError(`${prompt}: ${argumentIssues(parsed.error, Object.keys(input.shape))}`);
  try {
    return await runTool(index, name, parsed.data);
  } catch (error) {
    if (error instanceof ToolInputError) throw new PromptArgumentError(`${prompt}: ${error.message}`);
    throw error;
  }
}

/** In-game dollars as typed ("50000", "$50,000"): the number, or the text as it came (the schema names it). */
const moneyOf = (text: string) => {
  const plain = text.replace(/[$,_\s]/g, '');
  return /^\d+(\.\d+)?$/.test(plain) ? Number(plain) : text;
};

/** The messages of a prompt for these arguments; a PromptArgumentError for arguments that do not fit. */
export async function getPrompt(
  index: RouteIndex,
  name: PromptName,
  args: Record<string, string>,
  origin: string,
): Promise<PromptAnswer> {
  const allowed = new Set<string>(prompts[name].arguments.map((each) => each.name));
  const unknown = Object.keys(args).filter((each) => !allowed.has(each));
  if (unknown.length > 0)
    throw new PromptArgumentError(
      `${name}: unknown argument ${unknown.join(', ')} (the arguments are ${[...allowed].join(', ')})`,
    );
  for (const { name: argument, required } of prompts[name].arguments)
    if (required && (args[argument] ?? '').trim() === '')
      throw new PromptArgumentError(`${name}: ${argument} is required (${given(args[argument])} was given)`);
  if (name === 'plan_farm') return planFarm(index, args);
  if (name === 'compare_records') return compareRecords(index, args, origin);
  return whatsNew(index, args);
}

async function planFarm(index: RouteIndex, args: Record<string, string>): Promise<PromptAnswer> {
  const { level, money, plot } = args;
  const input = { level, ...(money ? { money: moneyOf(money) } : {}), ...(plot ? { plot } : {}) };
  const answer = await toolAnswer(index, 'plan_farm', 'plan', input);
  const spend = money ? `${money} in-game dollars to spend` : 'no limit on what I spend';
  const onPlot = plot ? `on a level ${plot} plot` : 'on a normal plot';
  return {
    description: prompts.plan_farm.title,
    messages: [
      userText(
        `My tree farm is at level ${level}, with ${spend}, ${onPlot}. Using the planner's answer below (the ` +
          "game's reference data), tell me which tree to grow now, whether to buy the next upgrade, and how long " +
          'it takes to pay back. Money is in in-game dollars.\n\n' +
          `${answer.text}\n\n${JSON.stringify(answer.data)}`,
      ),
    ],
  };
}

async function compareRecords(index: RouteIndex, args: Record<string, string>, origin: string): Promise<PromptAnswer> {
  const kind = args['kind'] as KindId;
  const found = [];
  const taken: string[] = [];
  for (const which of ['first', 'second'] as const) {
    const answer = await toolAnswer(index, 'compare_records', 'find_record', { kind, query: args[which] });
    const [record] = answer.data['records'] as { level: number; name?: string }[];
    // The tool's text is a sentence; in the error it is a clause of one.
    const clause = answer.text.charAt(0).toLowerCase() + answer.text.slice(1, -1);
    if (!record) throw new PromptArgumentError(`compare_records: ${which}: ${clause}`);
    if (answer.data['match'] === 'nearest') taken.push(answer.text);
    found.push(await readRecordResource(index, kind, record, origin));
  }
  const noun = kindById(kind)?.noun ?? kind;
  return {
    description: prompts.compare_records.title,
    messages: [
      userText(
        `Compare these two ${noun}s of the tree-farming game, figure by figure (money in in-game dollars, times ` +
          'in seconds, speeds in percent), and say which is better for what.' +
          taken.map((text) => ` ${text}`).join(''),
      ),
      ...found.map((resource) => ({ role: 'user' as const, content: { type: 'resource' as const, resource } })),
    ],
  };
}

async function whatsNew(index: RouteIndex, args: Record<string, string>): Promise<PromptAnswer> {
  const since = args['since'];
  const answer = await toolAnswer(index, 'whats_new', 'changes', since ? { since } : {});
  return {
    description: prompts.whats_new.title,
    messages: [
      userText(
        "Sum up for a player what changed in the tree-farming game's data, release by release, newest first: " +
          `what was added, removed and changed, and what it means for a farm.\n\n${answer.text}\n\n` +
          JSON.stringify(answer.data),
      ),
    ],
  };
}

/** At most this many values a completion gives (the protocol's bound). */
const MAX_COMPLETIONS = 100;

type Completion = { values: string[]; total?: number; hasMore?: boolean };
const NONE: Completion = { values: [] };
const capped = (values: string[]): Completion => ({
  values: values.slice(0, MAX_COMPLETIONS),
  total: values.length,
  hasMore: values.length > MAX_COMPLETIONS,
});

/** Record names (levels for plots) of `kind` that complete `typed`, from the suggestion index. */
async function recordValues(index: RouteIndex, kind: KindId, typed: string): Promise<string[]> {
  if (typed.length > 100) return [];
  const found = await suggestions(index, kind, typed.trim() === '' ? null : classifyText(typed));
  return found.map((each) => ('name' in each ? each.name : String(each.level)));
}

/** Levels of `kind` that complete `typed` (digits, or a name whose level is meant). */
async function levelValues(index: RouteIndex, kind: KindId, typed: string): Promise<string[]> {
  if (typed.length > 100) return [];
  const found = await suggestions(index, kind, typed.trim() === '' ? null : classifyText(typed));
  return [...new Set(found.map((each) => String(each.level)))];
}

/** Values that complete a prompt's argument, from the data; none for an argument of free text (money). */
export async function completePrompt(
  index: RouteIndex,
  name: string,
  argument: string,
  typed: string,
  context: Record<string, string>,
): Promise<Completion> {
  if (name === 'plan_farm' && argument === 'level') return capped(await levelValues(index, 'trees', typed));
  if (name === 'plan_farm' && argument === 'plot') return capped(await levelValues(index, 'plots', typed));
  if (name === 'compare_records' && argument === 'kind')
    return capped(kindIds.filter((kind) => kind.startsWith(typed.trim().toLowerCase())));
  if (name === 'compare_records' && (argument === 'first' || argument === 'second')) {
    const kind = context['kind'];
    if (!kindIds.includes(kind as KindId)) return NONE;
    return capped(await recordValues(index, kind as KindId, typed));
  }
  if (name === 'whats_new' && argument === 'since') {
    const { values, total } = await slugsStarting(index, 'releases', typed, MAX_COMPLETIONS);
    return { values, total, hasMore: total > values.length };
  }
  return NONE;
}

/** Values that complete a resource template's variable (a slug or a release id) from the data. */
export async function completeResource(
  index: RouteIndex,
  uriTemplate: string,
  argument: string,
  typed: string,
): Promise<Completion> {
  const match = new RegExp(`^${RESOURCE_SCHEME}://([a-z]+)/\\{(slug|id)\\}$`).exec(uriTemplate);
  if (!match || match[2] !== argument) return NONE;
  const { values, total } = await slugsStarting(index, match[1] ?? '', typed, MAX_COMPLETIONS);
  return { values, total, hasMore: total > values.length };
}
