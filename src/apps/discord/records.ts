// A record command's answer (/tree, /cutter, /gift, /storage, /vehicle, /plot) and a step
// button's: the records as embeds (every figure as the API's record has it), a link button to
// each one's wiki page, its card as the embed's image, and buttons to the previous and next record
// of the kind.
import type { APIButtonComponent, APIEmbed, APIEmbedField, APIInteractionResponse } from 'discord-api-types/v10';
import { MAX_EMBEDS, type CommandName } from './commands.ts';
import { type FigureRow, figureDefinitions, recordFigures } from '../../contract/figures.ts';
import { pagesRoute } from '../../contract/paths.ts';
import { pageOf, pagesOf, type RecordPage } from '../../contract/record-pages.ts';
import { recordPath } from '../../contract/paths.ts';
import { recordCardPath } from '../../contract/cards.ts';
import { currentRoute } from '../../contract/resolve.ts';
import type { ApiRecord, KindId, RecordsByKind } from '../../schema/kinds.ts';
import { linkButton, rows, stepButton } from './buttons.ts';
import { echo } from './echo.ts';
import type { Message } from './limits.ts';
import { ask, message, privateMessage, update } from './reply.ts';
import type { AnswerContext } from './context.ts';
import { nounOf, OPTION_FORMS, refusal } from './words.ts';
import { recordsInWords, type Suggestion } from '../../contract/suggest.ts';

/** A figure as the game shows it, the exact value beside it where it differs. */
export const both = ({ shown, exact }: Pick<FigureRow, 'shown' | 'exact'>): string =>
  shown === exact ? shown : `${shown} (${exact})`;

export const footer = (version: string) => ({ text: `Data version ${version}` });

/** A record's figures as the figure definitions of its kind show them. */
const figuresOf = <K extends KindId>(kind: K, record: ApiRecord) =>
  recordFigures(figureDefinitions[kind], record as RecordsByKind[K]);

/** A record's title: its name, or "Level 3 plot". */
const titleOf = (kind: KindId, record: ApiRecord): string => figuresOf(kind, record).title;

/**
 * A record as an embed: its title linking to its wiki page, every figure in both forms, derived
 * ones marked, and its card (src/contract/cards.ts) as the image, on the same origin as the link.
 */
function recordEmbed(
  kind: KindId,
  record: ApiRecord,
  version: string,
  url: string | undefined,
  card: string | undefined,
): APIEmbed {
  const { title, texts, figures, derived } = figuresOf(kind, record);
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
    ...(funfact ? { description: funfact } : {}),
    fields,
    ...(card === undefined ? {} : { image: { url: card } }),
    footer: footer(version),
  };
}

/** The kind's records in list order, the data version, and each record's wiki page. */
async function kindList(context: AnswerContext, kind: KindId) {
  const listed = await ask(context.index, 'list_records', { kind });
  if (!('answer' in listed)) throw new Error(`list_records refused ${kind}: ${listed.refused}`);
  const pages = pagesOf(await context.index.text((await currentRoute(context.index, pagesRoute(kind))).body));
  return {
    all: listed.answer.data['records'] as ApiRecord[],
    version: String(listed.answer.data['version']),
    pages,
  };
}

const sameRecord = (a: ApiRecord, b: ApiRecord) =>
  a.level === b.level && ('name' in a ? a.name : undefined) === ('name' in b ? b.name : undefined);

/** The message showing the records of `all` at these positions, with their buttons. */
export function recordsMessage(
  context: AnswerContext,
  kind: KindId,
  list: { all: readonly ApiRecord[]; version: string; pages: readonly RecordPage[] },
  positions: readonly number[],
): Message {
  const { all, version, pages } = list;
  const shown = positions.slice(0, MAX_EMBEDS);
  const links: APIButtonComponent[] = [];
  const embeds = shown.map((position) => {
    const record = all[position] as ApiRecord;
    const page = pageOf(pages, record);
    const url = page && context.origin + recordPath(kind, page[2]);
    const cardPath = page && recordCardPath(kind, page[2], pages.indexOf(page));
    if (url !== undefined) links.push(linkButton(shown.length === 1 ? 'Wiki page' : titleOf(kind, record), url));
    return recordEmbed(kind, record, version, url, cardPath && context.origin + cardPath);
  });
  const first = shown[0] ?? 0;
  const last = shown.at(-1) ?? 0;
  const before = all[first - 1];
  const after = all[last + 1];
  const buttons = [
    ...(before ? [stepButton(`◀ ${titleOf(kind, before)}`, { kind, position: first - 1 })] : []),
    ...links,
    ...(after ? [stepButton(`${titleOf(kind, after)} ▶`, { kind, position: last + 1 })] : []),
  ];
  return { embeds, components: rows(buttons) };
}

/** What a miss says: a level past the top, or the typed text (shown as text) and the nearest names. */
function missText(
  command: CommandName,
  kind: KindId,
  query: string,
  near: readonly Suggestion[],
  all: readonly ApiRecord[],
) {
  const top = Math.max(0, ...all.map(({ level }) => level));
  if (/^\d+$/.test(query) && Number(query) > top)
    return refusal(
      command,
      command === 'plot' ? 'level' : 'name',
      `no ${nounOf(kind)} has level ${Number(query)}: the top level is ${top}`,
    );
  if (near.length === 0)
    return refusal(command, 'name', `no ${nounOf(kind)} matches ${echo(query)}, and no name is near it`);
  return `No ${nounOf(kind)} matches ${echo(query)}. The nearest: ${recordsInWords(near, 5)}.`;
}

/** A record command: the records found as embeds with their buttons, or a private miss naming the nearest. */
export async function recordAnswer(
  context: AnswerContext,
  command: CommandName,
  kind: KindId,
  query: unknown,
): Promise<APIInteractionResponse> {
  const option = command === 'plot' ? 'level' : 'name';
  const asked = await ask(context.index, 'find_record', { kind, query });
  if ('refused' in asked) return privateMessage(refusal(command, option, OPTION_FORMS[option] ?? asked.refused));
  const { data } = asked.answer;
  const list = await kindList(context, kind);
  // A miss, or a name the MCP tool took the nearest record for: the app says what is near instead.
  if (data['match'] !== 'exact')
    return privateMessage(missText(command, kind, String(query), data['suggestions'] as Suggestion[], list.all));
  const positions = (data['records'] as ApiRecord[]).flatMap((record) => {
    const at = list.all.findIndex((each) => sameRecord(each, record));
    return at === -1 ? [] : [at];
  });
  return message(recordsMessage(context, kind, list, positions));
}

/** A step button's press: the message updated to the record at `position` of the kind's list. */
export async function stepAnswer(
  context: AnswerContext,
  kind: KindId,
  position: number,
): Promise<APIInteractionResponse> {
  const list = await kindList(context, kind);
  if (position >= list.all.length)
    return privateMessage(`There is no ${nounOf(kind)} there any more: the data has changed since. Look it up again.`);
  return update(recordsMessage(context, kind, list, [position]));
}
