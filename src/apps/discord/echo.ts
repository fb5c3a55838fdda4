// What a user typed, shown back in a message as text and nothing else: in a code span, where
// Discord renders no markdown, mention, emoji or link; without the characters that would end
// the span, break the line or turn the text around (controls, bidi overrides and isolates,
// zero-width marks); and no longer than an echo needs to be.

/** The most characters of the user's text shown back. */
export const ECHO_CHARS = 100;

// Controls, and format characters (zero-width and direction marks, bidi embeddings, overrides
// and isolates, the byte order mark), and line and paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `typed` as a code span Discord shows literally. */
export function echo(typed: string): string {
  const text = typed.replace(INVISIBLE, ' ').replace(/\s+/gu, ' ').trim().replaceAll('`', 'ˋ');
  const chars = [...text];
  const shown = chars.length <= ECHO_CHARS ? text : `${chars.slice(0, ECHO_CHARS - 1).join('')}…`;
  // A code span cannot be empty, and one of spaces alone is shown as nothing.
  return shown === '' ? '(nothing)' : `\`${shown}\``;
}
