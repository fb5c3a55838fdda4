// The answer cache: every answer the edge gives is made once per body, scope, status, encoding
// and method, frozen, and shared by every request that gets it, so the common request
// allocates almost nothing. It also picks the encoding (negotiation.ts) and answers
// conditional requests with the 304 of the encoding the client holds.
import { ifNoneMatchHits } from '../contract/entity-tags.ts';
import { sha256Hex } from '../contract/sha256.ts';
import { CACHE_ERROR, COMMON_HEADERS, JSON_CONTENT_TYPE, PREFLIGHT_HEADERS } from '../contract/headers.ts';
import type { FixedBodyName } from '../contract/messages.ts';
import { fixedRoute } from '../contract/paths.ts';
import { currentRoot, currentRoute, type RouteIndex } from '../contract/resolve.ts';
import type { AppHandOff, BodySource, EdgeRequest, EdgeResponse, HeaderRecord, MountedApp } from './decision.ts';
import { boundedMemo, type Memo } from './memo.ts';
import { chooseEncoding, type Encoding, etagFor } from './negotiation.ts';
import { methodOf } from './route.ts';

/** A body to answer with: a stored one, or a made text with its SHA-256 (its ETag's source). */
export type Body = { readonly stored: string } | MadeBody;
export interface MadeBody {
  readonly text: string;
  readonly sha256: string;
}

/** A made body of `text`, with its SHA-256. */
export const madeBody = async (text: string): Promise<MadeBody> => ({
  text,
  sha256: await sha256Hex(new TextEncoder().encode(text)),
});

/** The headers of an error answer: never cached. */
export const ERROR_HEADERS: HeaderRecord = { 'Cache-Control': CACHE_ERROR };

/** Answers about the data the API serves now, of no pinned release. */
export const CURRENT_DATA = Symbol('the current data');
/**
 * Answers outside /api/ (the static site's refusals, /healthz): remembered apart from the
 * API's, as they carry no RateLimit-Policy (they are never counted).
 */
export const OUTSIDE_API = Symbol('outside /api/');
/** Where an answer is given, which its headers depend on: a pinned release is named by its id. */
export type AnswerScope = typeof CURRENT_DATA | typeof OUTSIDE_API | string;

/** One encoding's answers of a body: to GET, to HEAD, and the 304 to either when the client holds it. */
interface EncodingAnswers {
  get?: EdgeResponse;
  head?: EdgeResponse;
  notModified?: EdgeResponse;
}
type BodyAnswers = Record<Encoding, EncodingAnswers>;
/** A body's answers by where they are given, then by status. */
type AnswersOfBody = Map<AnswerScope, Map<number, BodyAnswers>>;

/** Distinct values each memo keeps: far above what real clients send, small in memory. */
const MEMO_LIMITS = { encodings: 256, bodies: 4096 };
/** Longer Accept-Encoding values are worked out every time rather than remembered. */
const MEMO_KEY_LENGTH = 256;

/** The answer cache of one build; `policy` is RateLimit-Policy under a limit ({} without one). */
export class AnswerCache {
  private readonly encodings: Memo<string, Encoding> = boundedMemo(MEMO_LIMITS.encodings);
  // By SHA-256: of the stored body, or of the made text (two memos, so the two never meet).
  private readonly ofStored: Memo<string, AnswersOfBody> = boundedMemo(MEMO_LIMITS.bodies);
  private readonly ofMade: Memo<string, AnswersOfBody> = boundedMemo(MEMO_LIMITS.bodies);
  private readonly fixedBodies = new Map<FixedBodyName, string>();
  private preflightAnswer: EdgeResponse | undefined;
  private readonly appPreflightAnswers = new Map<MountedApp, EdgeResponse>();
  private readonly guardedHandOffs = new Map<string, AppHandOff>();
  private readonly unguardedHandOffs = new Map<string, AppHandOff>();
  /** The headers of every /api/ answer, with the current data version; read on the first request. */
  private baseHeaders: HeaderRecord | undefined;

  private readonly index: RouteIndex;
  private readonly policy: HeaderRecord;

  constructor(index: RouteIndex, policy: HeaderRecord) {
    this.index = index;
    this.policy = policy;
  }

  /** The answer with this status, body and extra headers, made once per scope, encoding and method. */
  async respond(
    status: number,
    body: Body,
    request: EdgeRequest,
    extra: HeaderRecord,
    scope: AnswerScope,
  ): Promise<EdgeResponse> {
    const encoding = this.encodingFor(request);
    const head = methodOf(request) === 'HEAD';
    const answers = this.answersOf(body, scope, status)[encoding];
    const known = head ? answers.head : answers.get;
    if (known) return known;
    const answer = await this.make(status, body, encoding, head, extra, scope);
    if (head) answers.head = answer;
    else answers.get = answer;
    return answer;
  }

  /** 200 with a body, or 304 when the client already holds this encoding of it. */
  async serveBody(body: Body, request: EdgeRequest, extra: HeaderRecord, scope: AnswerScope): Promise<EdgeResponse> {
    const found = await this.respond(200, body, request, extra, scope);
    const ifNoneMatch = request.header('if-none-match');
    if (ifNoneMatch === null || !ifNoneMatchHits(ifNoneMatch, found.headers['ETag'] ?? '')) return found;
    const answers = this.answersOf(body, scope, 200)[found.encoding];
    answers.notModified ??= notModified(found);
    return answers.notModified;
  }

  /** One of the edge's fixed answers (401, unknown endpoint, ...), with the current data version. */
  async fixed(
    status: number,
    name: FixedBodyName,
    request: EdgeRequest,
    extra: HeaderRecord,
    scope: AnswerScope = CURRENT_DATA,
  ): Promise<EdgeResponse> {
    let stored = this.fixedBodies.get(name);
    if (stored === undefined) {
      stored = (await currentRoute(this.index, fixedRoute(name))).body;
      this.fixedBodies.set(name, stored);
    }
    return this.respond(status, { stored }, request, extra, scope);
  }

  /** The 204 to a preflight (OPTIONS) of /api/, or of a guarded app with its own methods and headers: no body. */
  async preflight(app?: MountedApp): Promise<EdgeResponse> {
    const known = app ? this.appPreflightAnswers.get(app) : this.preflightAnswer;
    if (known) return known;
    const allowed = app?.guarded?.preflight ?? PREFLIGHT_HEADERS;
    const answer = frozenAnswer(
      204,
      { ...(await this.commonHeaders()), ...this.policy, ...allowed },
      'identity',
      false,
    );
    if (app) this.appPreflightAnswers.set(app, answer);
    else this.preflightAnswer = answer;
    return answer;
  }

  /** The hand-off of every request to an app that is not guarded: no token, no count, no headers of the API. */
  unguardedHandOff(app: string): AppHandOff {
    const known = this.unguardedHandOffs.get(app) ?? Object.freeze({ type: 'app' as const, app, headers: {} });
    this.unguardedHandOffs.set(app, known);
    return known;
  }

  /** The hand-off of every request to a guarded app (/mcp) let through: the API's headers, never cached. */
  async guardedHandOff(app: string): Promise<AppHandOff> {
    const known = this.guardedHandOffs.get(app);
    if (known) return known;
    const handOff: AppHandOff = Object.freeze({
      type: 'app',
      app,
      headers: Object.freeze({ ...(await this.commonHeaders()), ...this.policy, ...ERROR_HEADERS }),
    });
    this.guardedHandOffs.set(app, handOff);
    return handOff;
  }

  private async commonHeaders(): Promise<HeaderRecord> {
    this.baseHeaders ??= { ...COMMON_HEADERS, 'X-Data-Version': (await currentRoot(this.index)).version };
    return this.baseHeaders;
  }

  /** The encoding the request's Accept-Encoding chooses. */
  private encodingFor(request: EdgeRequest): Encoding {
    const accept = request.header('accept-encoding');
    if (accept === null) return 'identity';
    return accept.length > MEMO_KEY_LENGTH ? chooseEncoding(accept) : this.encodings.get(accept, chooseEncoding);
  }

  private answersOf(body: Body, scope: AnswerScope, status: number): BodyAnswers {
    const byScope =
      'stored' in body ? this.ofStored.get(body.stored, newScopes) : this.ofMade.get(body.sha256, newScopes);
    return entryOf(entryOf(byScope, scope, newStatuses), status, newBodyAnswers);
  }

  private async make(
    status: number,
    body: Body,
    encoding: Encoding,
    head: boolean,
    extra: HeaderRecord,
    scope: AnswerScope,
  ): Promise<EdgeResponse> {
    const headers: Record<string, string> = {
      ...(await this.commonHeaders()),
      ...(scope === OUTSIDE_API ? undefined : this.policy),
      ...extra,
      'Content-Type': JSON_CONTENT_TYPE,
      Vary: 'Accept-Encoding',
    };
    if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
    // Each encoding of a body has its own ETag.
    if (status === 200) headers['ETag'] = etagFor('stored' in body ? body.stored : body.sha256, encoding);
    const source: BodySource = Object.freeze('stored' in body ? { stored: body.stored } : { text: body.text });
    return frozenAnswer(status, headers, encoding, head, source);
  }
}

const newScopes = (): AnswersOfBody => new Map();
const newStatuses = (): Map<number, BodyAnswers> => new Map();
const newBodyAnswers = (): BodyAnswers => ({ identity: {}, br: {}, gzip: {} });

/** The value of `key` in `map`, made and set first when it has none. */
function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

function frozenAnswer(
  status: number,
  headers: Record<string, string>,
  encoding: Encoding,
  omitBody: boolean,
  body?: BodySource,
): EdgeResponse {
  return Object.freeze({ type: 'respond', status, headers: Object.freeze(headers), body, encoding, omitBody });
}

/** The 304 of an answer: its headers but the body's type and encoding, no body. */
function notModified(found: EdgeResponse): EdgeResponse {
  const { 'Content-Type': _type, 'Content-Encoding': _encoding, ...headers } = found.headers;
  return Object.freeze({
    type: 'respond',
    status: 304,
    headers: Object.freeze(headers),
    encoding: 'identity',
    omitBody: true,
  });
}
