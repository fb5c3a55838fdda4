// The errors of the client: one base class, so a caller can catch everything the client
// throws on purpose with `instanceof TreefarmError`, or one case by its own class.
import type { KindId } from '../schema/kinds.ts';

export class TreefarmError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No record matches the search (404). The message is the API's not-found message. */
export class NotFoundError extends TreefarmError {
  readonly status = 404;
  readonly kind: KindId;
  readonly search: string | null;
  constructor(message: string, kind: KindId, search: string | null) {
    super(message);
    this.kind = kind;
    this.search = search;
  }
}

/** No token, or a token the API does not know (401). */
export class AuthError extends TreefarmError {
  readonly status = 401;
}

/** Any other answer than 200, 401 and 404. */
export class ApiError extends TreefarmError {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

/** An archive that is not a valid bundle, or whose files do not match its manifest. */
export class BundleError extends TreefarmError {
  /** The file of the bundle at fault, when one is. */
  readonly file: string | undefined;
  constructor(message: string, file?: string) {
    super(message);
    this.file = file;
  }
}
