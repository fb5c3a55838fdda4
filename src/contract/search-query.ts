// What a `search` value asks for, by the rules of the API contract. Shared by the edge
// core and the offline client, so both answer every query the same way.
import { searchKey } from './search-key.ts';

/**
 * The shape of a `search` value that both searches and suggestions start from: the whole
 * list, ASCII digits, a search key, or a value that can match nothing.
 */
export type SearchText =
  | { type: 'all' }
  | { type: 'digits'; digits: string }
  | { type: 'key'; key: string }
  /** Longer than MAX_SEARCH_LENGTH characters, or a key with no letters or digits. */
  | { type: 'none' };

export type SearchQuery =
  | { type: 'all' }
  | { type: 'level'; level: number }
  | { type: 'name'; key: string }
  /** Can match nothing (too long, an empty key, a level past 2^53): not found, no lookup. */
  | { type: 'none' };

export const MAX_SEARCH_LENGTH = 100;

/**
 * Classifies the first `search` parameter (null when absent), already URL-decoded, by the API's
 * rule: absent, blank, `null` or `undefined` asks for the whole list.
 */
export function classifySearch(raw: string | null): SearchText {
  if (raw === null) return { type: 'all' };
  const value = raw.trim();
  const lower = value.toLowerCase();
  if (value === '' || lower === 'null' || lower === 'undefined') return { type: 'all' };
  return classifyText(value);
}

/**
 * Classifies a text as it is, with none of the API's query words (an MCP tool's argument is
 * its own: "null" is a name to look for, a blank text matches nothing).
 */
export function classifyText(raw: string): Exclude<SearchText, { type: 'all' }> {
  const value = raw.trim();
  // Counted in characters (code points), not UTF-16 units.
  if (value.length > MAX_SEARCH_LENGTH && [...value].length > MAX_SEARCH_LENGTH) return { type: 'none' };
  if (/^[0-9]+$/.test(value)) return { type: 'digits', digits: value };
  const key = searchKey(value);
  return key === '' ? { type: 'none' } : { type: 'key', key };
}

/** Interprets the first `search` parameter (null when absent), already URL-decoded. */
export const parseSearch = (raw: string | null): SearchQuery => searchQueryOf(classifySearch(raw));

/** What a classified text asks for: a level, a name, everything or nothing. */
export function searchQueryOf(text: SearchText): SearchQuery {
  switch (text.type) {
    case 'digits': {
      const level = Number(text.digits);
      return Number.isSafeInteger(level) ? { type: 'level', level } : { type: 'none' };
    }
    case 'key':
      return { type: 'name', key: text.key };
    default:
      return text;
  }
}
