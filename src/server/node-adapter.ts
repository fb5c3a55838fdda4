// Translates between node:http and the edge core: a request into an EdgeRequest, a decision
// into a response. Nothing here decides anything about the API. It runs for every request,
// so it reads the raw header list rather than building header objects, parses the request
// target with a plain pattern when that gives what a URL parser would, and writes each
// answer's headers from a list made once per answer, through writeHead (node:http's public API).
import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { EdgeResponse } from '../edge/core.ts';
import { encodeText } from './encode.ts';
import type { BodyStore } from './body-store.ts';

/** The request's URL, or undefined for a target no URL parser accepts. */
export function requestUrl(target: string): URL | undefined {
  try {
    // Origin-form ("/api/trees") is appended to a fixed origin rather than resolved against
    // it, so "//host/api" stays a path, as it is on the wire.
    return target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target);
  } catch {
    return undefined;
  }
}

/**
 * Origin-form targets in which a URL parser changes nothing: no dot segment, percent sign,
 * backslash, quote or other character it would resolve, encode or refuse in the path, and
 * only characters it keeps as they are in the query.
 */
const PLAIN_TARGET = /^(\/[A-Za-z0-9_~!$&()*+,;=:@/-]*)(?:\?([A-Za-z0-9_~!$&()*+,;=:@/?%.-]*))?$/;

export interface RequestTarget {
  pathname: string;
  /** Without its "?"; '' when there is none. */
  query: string;
}

/** The path and query of a request target as WHATWG URL parsing gives them; undefined when it fails. */
export function requestTarget(target: string): RequestTarget | undefined {
  const plain = PLAIN_TARGET.exec(target);
  if (plain) return { pathname: plain[1] ?? '/', query: plain[2] ?? '' };
  const url = requestUrl(target);
  return url && { pathname: url.pathname, query: url.search.slice(1) };
}

/**
 * A header of a raw header list (name, value, name, value, ...), every value of a repeated
 * header joined by ", " as fetch's Headers does, so both runtimes see the same; null when absent.
 * Like workerd, which hands the Worker the header lines after an empty one as if it were not
 * there, an empty value joins nothing until a value comes ("", "a" is "a"; "a", "" is "a, ").
 */
export function rawHeader(rawHeaders: readonly string[], name: string): string | null {
  let value: string | null = null;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (!isHeaderName(rawHeaders[index] ?? '', name)) continue;
    const next = rawHeaders[index + 1] ?? '';
    value = value === null || value === '' ? next : `${value}, ${next}`;
  }
  return value;
}

/** The header lookup of a request (rawHeader's rule), as the rules of src/contract take one. */
export const headersOf =
  (request: IncomingMessage) =>
  (name: string): string | null =>
    rawHeader(request.rawHeaders, name);

/**
 * Whether a header name as sent is `lowerName` in any letter case. HTTP folds only ASCII
 * letters; compared in place, as a lower-cased copy of every name would cost a string each.
 */
function isHeaderName(sent: string, lowerName: string): boolean {
  if (sent.length !== lowerName.length) return false;
  for (let index = 0; index < sent.length; index++) {
    const code = sent.charCodeAt(index);
    const wanted = lowerName.charCodeAt(index);
    // An upper-case ASCII letter is its lower-case letter's (a-z: 97-122) code minus 32.
    if (code !== wanted && (wanted < 97 || wanted > 122 || code !== wanted - 32)) return false;
  }
  return true;
}

/** Sends an answer, with this request's RateLimit value when it has one; the body bytes sent. */
export type SendDecision = (response: ServerResponse, decision: EdgeResponse, rateLimit?: string) => number;

/**
 * Sends decisions of one build: the header list of each answer (with its Content-Length) is made
 * once, then handed to writeHead by every request that gets that answer. A second list ends in a
 * RateLimit header, whose value each request under a limit sets to its own just before writeHead,
 * which turns the list into text at once: no response keeps the list (writeHead with an array
 * stores nothing getHeader reads), so a later request's value never shows on an earlier response.
 */
export function decisionSender(store: Pick<BodyStore, 'bytes'>): SendDecision {
  const prepared = new WeakMap<EdgeResponse, PreparedAnswer>();
  const prepare = (decision: EdgeResponse) => {
    const source = decision.body;
    const body = !source
      ? undefined
      : 'stored' in source
        ? store.bytes(source.stored, decision.encoding)
        : encodeText(source.text, decision.encoding);
    const headers: OutgoingHttpHeader[] = Object.entries(decision.headers).flat();
    if (body) headers.push('Content-Length', String(body.length));
    const ready: PreparedAnswer = {
      headers,
      limited: [...headers, 'RateLimit', ''],
      body: decision.omitBody ? undefined : body,
    };
    prepared.set(decision, ready);
    return ready;
  };
  return (response, decision, rateLimit) => {
    const { headers, limited, body } = prepared.get(decision) ?? prepare(decision);
    if (rateLimit === undefined) response.writeHead(decision.status, headers);
    else {
      limited[limited.length - 1] = rateLimit;
      response.writeHead(decision.status, limited);
    }
    response.end(body);
    return body?.length ?? 0;
  };
}

interface PreparedAnswer {
  /** The answer's headers as writeHead takes them: name, value, name, value, ... */
  headers: OutgoingHttpHeader[];
  /** `headers` and a RateLimit header, whose value is set for each request. */
  limited: OutgoingHttpHeader[];
  body: Uint8Array | undefined;
}
