// Discord's limits on what an app sends, and the one place every answer passes to meet them:
// Discord refuses a whole message ("This interaction failed") over any one limit, so a message
// is fitted here, trimmed with a visible "… and N more" or "…" rather than refused, and every
// message is marked to ping no one (allowed_mentions). Lengths are UTF-16 code units, never
// fewer than the characters Discord counts, and a cut never splits a surrogate pair.
import type {
  APIActionRowComponent,
  APIApplicationCommandOptionChoice,
  APIButtonComponent,
  APIEmbed,
  APIEmbedField,
  APIInteractionResponseCallbackData,
} from 'discord-api-types/v10';

/** Discord's limits (its developer documentation: Message, Embed, Component, Autocomplete). */
export const LIMITS = {
  content: 2000,
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  authorName: 256,
  /** The sum of every embed's title, description, field names and values, footer and author. */
  embedsTotal: 6000,
  rows: 5,
  rowButtons: 5,
  buttonLabel: 80,
  customId: 100,
  buttonUrl: 512,
  choices: 25,
  choiceName: 100,
  choiceValue: 100,
} as const;

/** A message as the answers make it, before it is fitted. */
export interface Message {
  content?: string;
  embeds?: APIEmbed[];
  components?: APIActionRowComponent<APIButtonComponent>[];
  flags?: number;
}

/** What a cut of lines says it left out. */
export const moreLines = (count: number): string => `… and ${count} more`;

/** `text` cut to `limit` code units with an ellipsis, never between the halves of a surrogate pair. */
function cutChars(text: string, limit: number): string {
  let end = Math.max(0, limit - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * `text` within `limit`: as it is when it fits; else its first whole lines and "… and N more"
 * (the lines left out) when at least one line fits so; else cut with an ellipsis.
 */
export function fitText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const lines = text.split('\n');
  let kept = 0;
  let length = 0;
  for (const line of lines) {
    const next = length + (kept > 0 ? 1 : 0) + line.length;
    if (next + 1 + moreLines(lines.length - kept - 1).length > limit) break;
    length = next;
    kept += 1;
  }
  return kept > 0 ? [...lines.slice(0, kept), moreLines(lines.length - kept)].join('\n') : cutChars(text, limit);
}

/** A part of an embed whose text counts toward the 6,000 of a message. */
interface Part {
  text: string;
  set(text: string): void;
}

function fitFields(fields: readonly APIEmbedField[]): APIEmbedField[] {
  const fitted = fields.map((field) => ({
    ...field,
    name: fitText(field.name, LIMITS.fieldName) || '—',
    value: fitText(field.value, LIMITS.fieldValue) || '—',
  }));
  if (fitted.length <= LIMITS.fields) return fitted;
  const left = fitted.length - (LIMITS.fields - 1);
  return [...fitted.slice(0, LIMITS.fields - 1), { name: '…', value: `and ${left} more` }];
}

/** An embed within the limits of each of its parts. */
function fitEmbed(embed: APIEmbed): APIEmbed {
  const fitted: APIEmbed = { ...embed };
  if (embed.title !== undefined) fitted.title = fitText(embed.title, LIMITS.title);
  if (embed.description !== undefined) fitted.description = fitText(embed.description, LIMITS.description);
  if (embed.fields !== undefined) fitted.fields = fitFields(embed.fields);
  if (embed.footer !== undefined) fitted.footer = { ...embed.footer, text: fitText(embed.footer.text, LIMITS.footer) };
  if (embed.author !== undefined)
    fitted.author = { ...embed.author, name: fitText(embed.author.name, LIMITS.authorName) };
  return fitted;
}

function partsOf(embed: APIEmbed): Part[] {
  const parts: Part[] = [];
  const { title, description, fields, footer, author } = embed;
  if (title !== undefined) parts.push({ text: title, set: (text) => (embed.title = text) });
  if (description !== undefined) parts.push({ text: description, set: (text) => (embed.description = text) });
  for (const field of fields ?? [])
    parts.push(
      { text: field.name, set: (text) => (field.name = text) },
      { text: field.value, set: (text) => (field.value = text) },
    );
  if (footer !== undefined) parts.push({ text: footer.text, set: (text) => (footer.text = text) });
  if (author !== undefined) parts.push({ text: author.name, set: (text) => (author.name = text) });
  return parts;
}

/** The characters of these embeds that count toward the 6,000 of a message. */
export const embedsLength = (embeds: readonly APIEmbed[]): number =>
  embeds.flatMap(partsOf).reduce((sum, part) => sum + part.text.length, 0);

/**
 * Embeds within every limit: each part within its own, then, while the message is over 6,000,
 * the longest part cut by what is over (by half at most), so long notes and lists give way
 * before titles and footers do.
 */
function fitEmbeds(embeds: readonly APIEmbed[]): APIEmbed[] {
  const fitted = embeds.slice(0, LIMITS.embeds).map(fitEmbed);
  const parts = fitted.flatMap(partsOf);
  let total = parts.reduce((sum, part) => sum + part.text.length, 0);
  while (total > LIMITS.embedsTotal) {
    const longest = parts.reduce((most, part) => (part.text.length > most.text.length ? part : most));
    const over = total - LIMITS.embedsTotal;
    const cut = fitText(longest.text, Math.max(1, longest.text.length - over, Math.ceil(longest.text.length / 2)));
    total -= longest.text.length - cut.length;
    longest.text = cut;
    longest.set(cut);
  }
  return fitted;
}

function fitButton(button: APIButtonComponent): APIButtonComponent | undefined {
  if ('url' in button && button.url.length > LIMITS.buttonUrl) return undefined;
  if ('custom_id' in button && button.custom_id.length > LIMITS.customId) return undefined;
  return 'label' in button && button.label !== undefined
    ? { ...button, label: fitText(button.label, LIMITS.buttonLabel) }
    : button;
}

function fitRows(rows: readonly APIActionRowComponent<APIButtonComponent>[]) {
  return rows
    .map((row) => ({
      ...row,
      components: row.components.flatMap((button) => fitButton(button) ?? []).slice(0, LIMITS.rowButtons),
    }))
    .filter((row) => row.components.length > 0)
    .slice(0, LIMITS.rows);
}

/** A message within Discord's limits that pings no one: what every message of the app is sent as. */
export function fitMessage(message: Message): APIInteractionResponseCallbackData {
  const { content, embeds = [], components, flags } = message;
  const left = embeds.length - LIMITS.embeds;
  const said = [content, left > 0 ? moreLines(left) : undefined].filter((text) => text !== undefined).join('\n');
  return {
    ...(said === '' ? {} : { content: fitText(said, LIMITS.content) }),
    ...(embeds.length === 0 ? {} : { embeds: fitEmbeds(embeds) }),
    ...(components === undefined ? {} : { components: fitRows(components) }),
    ...(flags === undefined ? {} : { flags }),
    allowed_mentions: { parse: [] },
  };
}

/** Autocomplete choices within Discord's limits: 25 at most, labels cut, none whose value is too long. */
export const fitChoices = <Value extends string | number>(
  choices: readonly APIApplicationCommandOptionChoice<Value>[],
): APIApplicationCommandOptionChoice<Value>[] =>
  choices
    .filter(({ value }) => typeof value !== 'string' || value.length <= LIMITS.choiceValue)
    .slice(0, LIMITS.choices)
    .map((choice) => ({ ...choice, name: fitText(choice.name, LIMITS.choiceName) }));
