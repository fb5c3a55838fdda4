// What the Discord app answers an interaction Discord has signed: a slash command (a record as
// an embed, the planner, the latest release), or the choices of an autocomplete. Every answer
// reads through the MCP tools (src/contract/mcp/tools.ts), which read through the API's one
// resolver: a record's figures are the API's, a choice list is GET /api/<kind>/suggest's, and a
// plan is the planner's formulas (src/contract/economics.ts). Pure and Web-standard.
import type {
  APIEmbed,
  APIEmbedField,
  APIInteractionResponse,
  APIApplicationCommandOptionChoice,
} from 'discord-api-types/v10';
import {
  EPHEMERAL,
  MAX_CHOICES,
  MAX_EMBEDS,
  NAME_COMMANDS,
  type NameCommand,
  RESPONSE,
  commandNames,
} from '../../contract/discord/commands.ts';
import type { NextUpgrade, PlanRow } from '../../contract/economics.ts';
import { type FigureRow, figureDefinitions, figureRow, formatValue, recordFigures } from '../../contract/figures.ts';
import {
  argumentIssues,
  runTool,
  type ToolAnswer,
  ToolInputError,
  type ToolName,
  tools,
} from '../../contract/mcp/tools.ts';
import { PLANNER_PATH, pagesRoute, releasePath } from '../../contract/paths.ts';
import { pagePathOf } from '../../contract/record-pages.ts';
import { currentRoute, type RouteIndex } from '../../contract/resolve.ts';
import type { ApiRecord, KindId, RecordsByKind } from '../../schema/kinds.ts';
import { kindById } from '../../schema/kinds.ts';
import type { ReleaseSummary } from '../../schema/releases.ts';
import type { Suggestion } from '../../contract/suggest.ts';

/** An option of a command as Discord sends it (only what is read of it). */
export interface CommandOption {
  name: string;
  value: unknown;
  focused?: boolean;
}

/** What an answer needs besides the interaction: the build, and the origin its links point to. */
export interface AnswerContext {
  index: RouteIndex;
  /** The origin the request came to, so a link opens the wiki of the same deployment. */
  origin: string;
}

/** Discord's limits on an embed's parts. */
const FIELD_VALUE_CHARS = 1024;
const DESCRIPTION_CHARS = 4096;

/** A message only its asker sees: what a miss, a refusal or an unknown request answers. */
export const privateMessage = (content: string): APIInteractionResponse => ({
  type: RESPONSE.message,
  data: { content, flags: EPHEMERAL },
});

const embedsMessage = (embeds: APIEmbed[]): APIInteractionResponse => ({ type: RESPONSE.message, data: { embeds } });

/** A tool's answer to these arguments, or why the arguments are refused (in the tool's words). */
async function ask(
  index: RouteIndex,
  name: ToolName,
  args: Record<string, unknown>,
): Promise<{ answer: ToolAnswer } | { refused: string }> {
  const input = tools[name].input;
  const parsed = input.safeParse(args);
  if (!parsed.success) return { refused: argumentIssues(parsed.error, Object.keys(input.shape)) };
  try {
    return { answer: await runTool(index, name, parsed.data) };
  } catch (error) {
    if (error instanceof ToolInputError) return { refused: error.message };
    throw error;
  }
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

const isNameCommand = (name: string): name is NameCommand => Object.hasOwn(NAME_COMMANDS, name);

/** A figure as the game shows it, the exact value beside it where it differs. */
const both = ({ shown, exact }: Pick<FigureRow, 'shown' | 'exact'>): string =>
  shown === exact ? shown : `${shown} (${exact})`;

/** Text cut to Discord's `limit`, with an ellipsis when cut. */
const within = (text: string, limit: number): string => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

const footer = (version: string) => ({ text: `Data version ${version}` });

/** A record as an embed: its title linking to its wiki page, every figure in both forms, derived ones marked. */
function recordEmbed<K extends KindId>(
  kind: K,
  record: RecordsByKind[K],
  version: string,
  url: string | undefined,
): APIEmbed {
  const { title, texts, figures, derived } = recordFigures(figureDefinitions[kind], record);
  const fields: APIEmbedField[] = [
    // The name is in the title already (a gift's "small" in "Small gift").
    ...texts
      .filter(({ text }) => !('name' in record) || text !== record.name)
      .map(({ label, text }) => ({ name: label, value: text, inline: true })),
    ...figures.map((figure) => ({ name: figure.label, value: both(figure), inline: true })),
    ...derived.map((figure) => ({ name: `${figure.label} (derived)`, value: both(figure), inline: true })),
  ];
  const funfact = 'funfact' in record ? record.funfact : undefined;
  return {
    title,
    ...(url === undefined ? {} : { url }),
    ...(funfact ? { description: within(funfact, DESCRIPTION_CHARS) } : {}),
    fields,
    footer: footer(version),
  };
}

/** A record command (/tree, /plot, ...): the records found as embeds, or a private miss naming the nearest. */
async function recordAnswer(context: AnswerContext, kind: KindId, query: unknown): Promise<APIInteractionResponse> {
  const asked = await ask(context.index, 'find_record', { kind, query });
  if ('refused' in asked) return privateMessage(`Invalid option: ${asked.refused}`);
  const { text, data } = asked.answer;
  if (data['found'] !== true) return privateMessage(text);
  const version = String(data['version']);
  const found = (data['records'] as ApiRecord[]).slice(0, MAX_EMBEDS);
  const pages = await context.index.text((await currentRoute(context.index, pagesRoute(kind))).body);
  return embedsMessage(
    found.map((record) => {
      const path = pagePathOf(kind, pages, record);
      return recordEmbed(kind, record as RecordsByKind[typeof kind], version, path && context.origin + path);
    }),
  );
}

const money = (value: number) => both(figureRow('', 'money', value));

/** /plan: the best tree within reach and the next upgrade with its payback, as the planner works them out. */
async function planAnswer(context: AnswerContext, values: Record<string, unknown>): Promise<APIInteractionResponse> {
  const asked = await ask(context.index, 'plan', values);
  if ('refused' in asked) return privateMessage(`Invalid option: ${asked.refused}`);
  const { text, data } = asked.answer;
  const best = (data['ranking'] as PlanRow[])[0];
  const next = data['next'] as NextUpgrade | null;
  const plot = data['plot'] as { level: number | null; growthSpeed: number };
  const fields: APIEmbedField[] = [
    { name: 'Plot', value: plot.level === null ? 'normal (100%)' : `level ${plot.level} (${plot.growthSpeed}%)` },
  ];
  if (best)
    fields.push(
      { name: 'Best tree within reach', value: `${best.name} (level ${best.level})` },
      { name: 'Profit per hour (derived)', value: money(best.profitPerHour), inline: true },
      { name: 'Upgrades to reach it (derived)', value: money(best.costFromHere), inline: true },
    );
  if (next)
    fields.push(
      {
        name: 'Next upgrade',
        value: `${next.name} (level ${next.level})${next.affordable ? '' : ', not affordable yet'}`,
      },
      { name: 'Upgrade cost', value: money(next.cost), inline: true },
      {
        name: 'Payback (derived)',
        value: next.paybackHours === null ? 'never' : both(figureRow('', 'hours', next.paybackHours)),
        inline: true,
      },
      { name: 'Gain per hour (derived)', value: money(next.gainPerHour), inline: true },
    );
  const level = String(data['level']);
  return embedsMessage([
    {
      title: `Plan for level ${level}`,
      url: context.origin + PLANNER_PATH,
      description: within(text, DESCRIPTION_CHARS),
      fields,
      footer: footer(String(data['version'])),
    },
  ]);
}

/** A changed record's heading: its name, or "Level 3 plot". */
const changedTitle = ({ kind, name, level }: { kind: KindId; name?: string; level: number }) =>
  name ?? `Level ${level} ${kindById(kind)?.noun ?? kind}`;

/** Lines as one embed field's value, cut at whole lines to Discord's limit, saying how many are left out. */
function lines(all: readonly string[]): string {
  if (all.length === 0) return '—';
  const kept: string[] = [];
  let length = 0;
  for (const [at, line] of all.entries()) {
    const more = `… and ${all.length - at} more`;
    if (length + line.length + 1 + more.length > FIELD_VALUE_CHARS) return [...kept, more].join('\n');
    kept.push(line);
    length += line.length + 1;
  }
  return kept.join('\n');
}

/** /changes: the latest data release and what it changed, linking to its page. */
async function changesAnswer(context: AnswerContext): Promise<APIInteractionResponse> {
  const asked = await ask(context.index, 'changes', {});
  if ('refused' in asked) return privateMessage(asked.refused);
  const latest = (asked.answer.data['releases'] as ReleaseSummary[])[0];
  if (!latest) return privateMessage('There are no data releases yet.');
  const { added, removed, changed } = latest.changes;
  const changedLines = changed.flatMap((change) =>
    Object.entries(change.fields).map(
      ([field, { from, to }]) =>
        `${changedTitle(change)}: ${formatValue(change.kind, field, from)} → ${formatValue(change.kind, field, to)}`,
    ),
  );
  return embedsMessage([
    {
      title: `Release ${latest.id}`,
      url: context.origin + releasePath(latest.id),
      description: within(
        `${latest.notes}\n\n${added.length} added, ${removed.length} removed, ${changed.length} changed`,
        DESCRIPTION_CHARS,
      ),
      fields: [
        { name: 'Added', value: lines(added.map(changedTitle)) },
        { name: 'Removed', value: lines(removed.map(changedTitle)) },
        { name: 'Changed', value: lines(changedLines) },
      ],
      footer: footer(latest.version),
    },
  ]);
}

const COMMAND_LIST = commandNames.map((name) => `/${name}`).join(', ');

/** An application command's answer. */
export function commandAnswer(
  context: AnswerContext,
  name: string,
  options: readonly CommandOption[],
): Promise<APIInteractionResponse> {
  const { values } = optionsOf(options);
  if (isNameCommand(name)) return recordAnswer(context, NAME_COMMANDS[name], values['name']);
  if (name === 'plot') return recordAnswer(context, 'plots', values['level']);
  if (name === 'plan') return planAnswer(context, values);
  if (name === 'changes') return changesAnswer(context);
  return Promise.resolve(privateMessage(`This app has no command /${name}: its commands are ${COMMAND_LIST}.`));
}

/**
 * An autocomplete's choices: what GET /api/<kind>/suggest answers for the focused text, in its
 * order, each name as both label and value; none for a command or option that has no choices.
 */
export async function autocompleteAnswer(
  context: AnswerContext,
  name: string,
  options: readonly CommandOption[],
): Promise<APIInteractionResponse> {
  const { values, focused } = optionsOf(options);
  let choices: APIApplicationCommandOptionChoice<string>[] = [];
  const text = values['name'];
  if (isNameCommand(name) && focused === 'name' && typeof text === 'string') {
    const asked = await ask(context.index, 'suggest', { kind: NAME_COMMANDS[name], text });
    if ('answer' in asked)
      choices = (asked.answer.data['suggestions'] as Suggestion[])
        .flatMap((suggestion) => ('name' in suggestion ? [{ name: suggestion.name, value: suggestion.name }] : []))
        .slice(0, MAX_CHOICES);
  }
  return { type: RESPONSE.choices, data: { choices } };
}
