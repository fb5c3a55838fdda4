// A tool's long list a page at a time, so that every answer stays small enough for a model's
// context: a page holds the tool's default number of items, and fewer when they would take
// more than PAGE_BYTES as JSON, which keeps a whole answer (its text, the data as JSON text and
// as structuredContent: the data counts twice) within MAX_ANSWER_BYTES; a `limit` asked for is
// given as asked (at most MAX_PAGE_LIMIT), the caller's choice of size. An opaque cursor names
// where the next page starts, in that list only: it holds a fingerprint of the tool, the
// arguments that chose the list and the data version, so a cursor of another list (or of
// data since replaced) is refused rather than read as an offset into the wrong one.

/** An answer's bytes at most: its texts' UTF-8 bytes plus structuredContent's as compact JSON. */
export const MAX_ANSWER_BYTES = 16 * 1024;
/** The items of a page take at most this many UTF-8 bytes of JSON (the first item always goes in). */
const PAGE_BYTES = 5 * 1024;
/** The most items a page holds, whatever `limit` asks. */
export const MAX_PAGE_LIMIT = 100;
/** How many items a page of each paged tool holds by default (fewer when they are long). */
export const DEFAULT_PAGE_LIMITS = { find_record: 10, list_records: 20, plan: 10, changes: 50 } as const;

/** What a call asks of a list: how many items a page (none: the default), and the nextCursor of the page before. */
export interface PageAsk {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A page of a list: its items, the position of the first, how many the list holds, the cursor of the next page. */
export interface Page<Item> {
  items: Item[];
  from: number;
  total: number;
  nextCursor?: string;
}

/** A cursor no page of this list gave: a tool's argument error naming it. */
export class CursorError extends Error {
  override name = 'CursorError';
}

/** A short fingerprint of a list's identity (FNV-1a, 32 bits): enough to tell lists apart, opaque. */
function fingerprint(list: string): string {
  let hash = 0x811c9dc5;
  for (let at = 0; at < list.length; at++) hash = Math.imul(hash ^ list.charCodeAt(at), 0x01000193);
  return (hash >>> 0).toString(36);
}

const utf8 = new TextEncoder();
const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value)).length;

/** Where the page a cursor names starts; a CursorError for a cursor of no page of `list`. */
function offsetOf(cursor: string, list: string, total: number): number {
  let decoded = '';
  try {
    decoded = atob(cursor);
  } catch {
    // Not base64: no cursor of this server; said below.
  }
  const match = /^([0-9a-z]+):([1-9][0-9]*)$/.exec(decoded);
  const offset = match && match[1] === fingerprint(list) ? Number(match[2]) : Number.NaN;
  if (!(offset < total))
    throw new CursorError(
      `cursor: ${JSON.stringify(cursor.slice(0, 40))} is no cursor of this list (give the nextCursor of its ` +
        'page before, with the same other arguments, or no cursor for the first page)',
    );
  return offset;
}

/**
 * The page of `all` that `ask` names: from its cursor (none: the start), its limit of items, or
 * without one `defaultLimit` and no more bytes than a page holds. `list` names the list
 * (the tool, the arguments that chose it, the data version); `whole` gives every item at once,
 * for callers with limits of their own (the Discord app).
 */
export function pageOf<Item>(
  all: readonly Item[],
  list: string,
  ask: PageAsk,
  defaultLimit: number,
  whole = false,
): Page<Item> {
  if (whole) return { items: [...all], from: 0, total: all.length };
  const from = ask.cursor === undefined ? 0 : offsetOf(ask.cursor, list, all.length);
  const most = Math.min(ask.limit ?? defaultLimit, MAX_PAGE_LIMIT);
  // A limit asked for is the caller's choice of size; the default keeps to the page's bytes.
  const bound = ask.limit === undefined ? PAGE_BYTES : Number.POSITIVE_INFINITY;
  const items: Item[] = [];
  let bytes = 0;
  for (let at = from; at < all.length && items.length < most; at++) {
    if (ask.limit === undefined) bytes += jsonBytes(all[at]);
    if (items.length > 0 && bytes > bound) break;
    items.push(all[at] as Item);
  }
  const next = from + items.length;
  return next < all.length
    ? { items, from, total: all.length, nextCursor: btoa(`${fingerprint(list)}:${next}`) }
    : { items, from, total: all.length };
}

/** What a page says of itself when the list does not fit in one, as a clause; '' when it does. */
export function pageClause(page: Page<unknown>, noun: string): string {
  if (page.from === 0 && page.nextCursor === undefined) return '';
  const shown = `${noun} ${page.from + 1} to ${page.from + page.items.length} of ${page.total}`;
  return page.nextCursor === undefined
    ? `; this last page holds ${shown}`
    : `; this page holds ${shown}, and the cursor "${page.nextCursor}" gives the next`;
}
