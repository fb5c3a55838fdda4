// Answer headers handed to node:http as checked. writeHead(status, headers) checks every name and
// value against HTTP's characters on every response (a regular expression each: about a twentieth
// of what a remembered API answer costs the serving thread, `npm run bench:instructions`), while
// the headers a response holds itself (setHeader's, checked as they were set) it writes as they
// are. An answer's headers are the same for every request that gets it: they are checked once
// here, with node:http's own validateHeaderName and validateHeaderValue, and put where a response
// holds its headers (OutgoingMessage's private slot, kOutHeaders). A speed trick of this adapter
// alone: on a Node without that slot, or for a response that already holds a header of its own,
// writeHeld says so and the caller writes the headers the public way.
import {
  type OutgoingHttpHeader,
  OutgoingMessage,
  type ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';

/** The slot a message holds its headers in: null until one is set (undefined: this Node has none). */
const HEADERS_SLOT = Object.getOwnPropertySymbols(new OutgoingMessage()).find(
  (symbol) => symbol.description === 'kOutHeaders',
);

/** Headers as a response holds them: by lower-case name, the name as written and its value. */
export type HeldHeaders = Record<string, [name: string, value: string]>;

/** Whether this Node takes held headers (else every answer's headers go through writeHead's checks). */
export const headersCanBeHeld = (): boolean => HEADERS_SLOT !== undefined;

/**
 * `flat` (name, value, name, value, ...) checked as writeHead checks it, and held as a response
 * holds headers; undefined where headers cannot be held, or when two names are one header (held
 * headers keep one value a name).
 */
export function holdHeaders(flat: readonly OutgoingHttpHeader[]): HeldHeaders | undefined {
  if (!headersCanBeHeld()) return undefined;
  const held: HeldHeaders = Object.create(null);
  for (let index = 0; index < flat.length; index += 2) {
    const name = String(flat[index]);
    const value = String(flat[index + 1]);
    validateHeaderName(name);
    validateHeaderValue(name, value);
    const key = name.toLowerCase();
    if (key in held) return undefined;
    held[key] = [name, value];
  }
  return held;
}

/**
 * Writes the status line and `held` as writeHead would, unchecked; false, writing nothing, where
 * it cannot (this Node has no slot for them, or `response` holds a header already). The
 * response keeps `held` as its own: nothing changes a response's headers once they are written,
 * so one object serves every response of an answer.
 */
export function writeHeld(response: ServerResponse, status: number, held: HeldHeaders): boolean {
  if (HEADERS_SLOT === undefined) return false;
  const slots = response as unknown as Record<symbol, unknown>;
  if (slots[HEADERS_SLOT] !== null) return false;
  slots[HEADERS_SLOT] = held;
  response.writeHead(status);
  return true;
}
