// A Forwarded header's value (RFC 7239, section 4) as its elements, read from the right end.
// The elements a trusted proxy appends are at the right end and well formed; what a client sent
// is to their left and may be anything. A left-to-right reading lets the client's text decide
// where the proxy's begins: an unclosed `x="a` pairs its quote with the proxy's own, and the
// proxy's element vanishes into the client's string. Read from the right, each element ends at
// the first comma outside a quoted-string to its left, so a well-formed element is the same
// whatever precedes it; the first malformed spot makes everything left of it one invalid element,
// which is only ever what the client sent. Web-standard only.

/** An element's pairs by lower-case parameter name (values unquoted), or null when it is malformed. */
export type ForwardedElement = ReadonlyMap<string, string> | null;

/** RFC 9110's tchar: the characters of a token (a parameter's name, an unquoted value). */
const isTokenChar = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || // 0-9
  (code >= 0x41 && code <= 0x5a) || // A-Z
  (code >= 0x61 && code <= 0x7a) || // a-z
  "!#$%&'*+-.^_`|~".includes(String.fromCharCode(code));

/** What a quoted-string may hold (qdtext and the escaped character of a quoted-pair): HTAB, SP, VCHAR, obs-text. */
const isQuotedChar = (code: number): boolean => code === 0x09 || (code >= 0x20 && code !== 0x7f && code <= 0xff);

const isWhiteSpace = (char: string | undefined): boolean => char === ' ' || char === '\t';

/** A cursor moving leftwards over `text`: `at` is the index just past the next character to read. */
class Backwards {
  readonly text: string;
  at: number;

  constructor(text: string) {
    this.text = text;
    this.at = text.length;
  }

  /** The next character to read (a method: it changes as the cursor moves). */
  next(): string | undefined {
    return this.at > 0 ? this.text[this.at - 1] : undefined;
  }

  skipWhiteSpace(): void {
    while (isWhiteSpace(this.next())) this.at--;
  }

  /** The token ending here (empty when none). */
  token(): string {
    const end = this.at;
    while (this.at > 0 && isTokenChar(this.text.charCodeAt(this.at - 1))) this.at--;
    return this.text.slice(this.at, end);
  }

  /** How many backslashes run leftwards from `index` (exclusive). */
  backslashesBefore(index: number): number {
    let start = index;
    while (start > 0 && this.text[start - 1] === '\\') start--;
    return index - start;
  }

  /**
   * The quoted-string ending here, unescaped; undefined when it is not one. A quote is escaped
   * exactly when an odd run of backslashes precedes it (a backslash inside a quoted-string always
   * starts a quoted-pair), so the opening quote is the first to the left after an even run.
   */
  quotedString(): string | undefined {
    const close = this.at - 1;
    if (this.backslashesBefore(close) % 2 === 1) return undefined;
    let open = close - 1;
    while (open >= 0 && !(this.text[open] === '"' && this.backslashesBefore(open) % 2 === 0)) open--;
    if (open < 0) return undefined;
    let content = '';
    for (let index = open + 1; index < close; index++) {
      if (this.text[index] === '\\') index++;
      if (!isQuotedChar(this.text.charCodeAt(index))) return undefined;
      content += this.text[index];
    }
    this.at = open;
    return content;
  }

  /** A value (a token or a quoted-string) ending here; undefined when there is none. */
  value(): string | undefined {
    if (this.next() === '"') return this.quotedString();
    const token = this.token();
    return token === '' ? undefined : token;
  }
}

/**
 * The element ending at the cursor (up to a comma outside a quoted-string, or the start), its
 * pairs by lower-case name; null when it is malformed (a pair without `=`, an unclosed quote,
 * a character outside the grammar, a parameter given twice).
 */
function elementBefore(cursor: Backwards): ForwardedElement {
  const pairs = new Map<string, string>();
  for (;;) {
    cursor.skipWhiteSpace();
    const next = cursor.next();
    if (next === undefined || next === ',') return pairs;
    if (next === ';') {
      cursor.at--;
      continue;
    }
    const value = cursor.value();
    if (value === undefined || cursor.next() !== '=') return null;
    cursor.at--;
    const name = cursor.token().toLowerCase();
    if (name === '' || pairs.has(name)) return null;
    pairs.set(name, value);
    cursor.skipWhiteSpace();
    if (cursor.next() !== undefined && cursor.next() !== ',' && cursor.next() !== ';') return null;
  }
}

/**
 * The elements of a Forwarded value, left to right (several header lines come joined by commas,
 * as RFC 9110 joins a list). Empty list elements are left out. Read from the right: at the first
 * malformed element, it and everything left of it are one invalid element (null), the leftmost.
 */
export function forwardedElements(value: string): ForwardedElement[] {
  const elements: ForwardedElement[] = [];
  const cursor = new Backwards(value);
  for (;;) {
    while (cursor.next() === ',' || isWhiteSpace(cursor.next())) cursor.at--;
    if (cursor.at === 0) break;
    const element = elementBefore(cursor);
    elements.push(element);
    if (element === null) break;
  }
  return elements.reverse();
}
