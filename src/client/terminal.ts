// Text for a terminal from strings of a bundle or an API answer, which anyone may have written:
// control characters would reach the terminal as commands (ESC[2J clears the screen,
// ESC]0;...BEL sets its title, others rewrite what was printed). Whatever the CLI and
// `npm run bundle:verify` print goes through here.

/**
 * An escape sequence (ECMA-48): a control sequence (ESC [ or CSI, parameters, intermediates,
 * final byte), a command string (ESC ] P X ^ _ or OSC DCS SOS PM APC, up to BEL, ESC \ or ST,
 * or to the end when unterminated), or ESC with intermediates and a final byte; a lone ESC.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    String.raw`(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?`,
    String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?`,
    String.raw`\x1b[ -/]*[0-~]?`,
  ].join('|'),
  'g',
);

/** C0 controls but tab and line feed, DEL, and the C1 controls (U+0080-U+009F; U+009B is CSI). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` without escape sequences and control characters; tabs and line breaks stay. */
export const printable = (text: string): string => text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');

/** `text` printable on one line: tabs and line breaks become spaces. */
export const printableLine = (text: string): string => printable(text).replace(/[\t\n]/g, ' ');

/**
 * JSON text with DEL and the C1 controls written as \u escapes, the same JSON to a parser
 * (JSON.stringify already escapes C0). Outside strings JSON holds none of them.
 */
export const escapedJson = (json: string): string =>
  json.replace(/[\x7f-\x9f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
