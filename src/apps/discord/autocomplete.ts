// An autocomplete's choices: what GET /api/<kind>/suggest answers for the focused text, in its
// order, each labelled with what it is ("Oak Tree · level 69", or "Knife · as Bread Knife" when
// the text matched an alias) and valued by the record's name, the name the command then finds.
import type { APIApplicationCommandOptionChoice } from 'discord-api-types/v10';
import { pagesRoute } from '../../contract/paths.ts';
import { pageOf, pagesOf, type RecordPage } from '../../contract/record-pages.ts';
import { currentRoute, type RouteIndex } from '../../contract/resolve.ts';
import { searchKey } from '../../contract/search-key.ts';
import type { Suggestion } from '../../contract/suggest.ts';
import { wordKeys } from '../../contract/suggest.ts';
import type { KindId } from '../../schema/kind-ids.ts';
import { fitChoices, LIMITS } from './limits.ts';
import { ask } from './reply.ts';

/** Whether the text's key starts `name`'s key or one of its words' keys. */
const starts = (key: string, name: string) =>
  searchKey(name).startsWith(key) || wordKeys(name).some((word) => word.startsWith(key));

/** What a choice says it is: the alias the text matched when it did not match the name, else its level. */
function labelOf(suggestion: { name: string; level: number }, page: RecordPage | undefined, key: string): string {
  const alias = key === '' || starts(key, suggestion.name) ? undefined : page?.[3]?.find((each) => starts(key, each));
  return `${suggestion.name} · ${alias === undefined ? `level ${suggestion.level}` : `as ${alias}`}`;
}

/**
 * The choices for `text` typed in a name option of `kind`. A name too long to be a choice's value
 * is valued by its level, which finds it (with any other record of that level).
 */
export async function nameChoices(
  index: RouteIndex,
  kind: KindId,
  text: string,
): Promise<APIApplicationCommandOptionChoice<string>[]> {
  const asked = await ask(index, 'suggest', { kind, text });
  if (!('answer' in asked)) return [];
  const suggestions = (asked.answer.data['suggestions'] as Suggestion[]).flatMap((each) =>
    'name' in each ? [each] : [],
  );
  if (suggestions.length === 0) return [];
  const pages = pagesOf(await index.text((await currentRoute(index, pagesRoute(kind))).body));
  const key = searchKey(text);
  return fitChoices(suggestions.map((suggestion) => choiceOf(suggestion, pageOf(pages, suggestion), key)));
}

/** A suggestion as a choice: labelled with what it is, valued by its name (by its level when too long a value). */
export const choiceOf = (
  suggestion: { name: string; level: number },
  page: RecordPage | undefined,
  key: string,
): APIApplicationCommandOptionChoice<string> => ({
  name: labelOf(suggestion, page, key),
  value: suggestion.name.length <= LIMITS.choiceValue ? suggestion.name : String(suggestion.level),
});
