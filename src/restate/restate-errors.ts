/**
 * What can go wrong between statewright and a Restate server, each saying what to do about it.
 */
import { StatewrightError } from '../errors.js';
import { MIN_TOKEN_LENGTH } from '../secret-token.js';

/** The HTTP status of each refusal, as the ingress answers it and the ingress client reads it. */
export const REFUSED_STATUS = { unauthorized: 401, forbidden: 403 } as const;

/** No answer from a Restate ingress or admin API within the time allowed (the server is down, or every node is). */
export class RestateUnreachableError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'RestateUnreachableError';
  constructor(
    readonly url: string,
    override readonly cause: unknown,
  ) {
    super(
      `No answer from Restate at ${url}: ${cause instanceof Error ? cause.message : String(cause)}. Check that the Restate server runs and that the URL names its ingress (default port 8080) or admin API (default port 9070).`,
    );
  }
}

/** Restate itself refused a call (not a run's refusal): a service not registered, a bad request, a failed handler. */
export class RestateCallError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'RestateCallError';
  constructor(
    readonly url: string,
    readonly status: number,
    detail: string,
  ) {
    super(
      `Restate answered ${status} to ${url}: ${detail.replace(/\.$/, '')}.${status === 404 ? ' Is a statewright worker registered with this Restate server (`statewright worker --restate-admin <url>`)?' : ''}`,
    );
  }
}

/** An endpoint set up so that it cannot work (actors given with no ingress to report through). */
export class RestateSetupError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'RestateSetupError';
  constructor(problem: string) {
    super(`Cannot host the lifecycles on Restate: ${problem}.`);
  }
}

/** How a client gives the run objects the worker's token, said in every refusal for a token. */
const HOW_TO_SEND =
  'send the token statewright worker was started with (its --token or STATEWRIGHT_RESTATE_TOKEN) as "Authorization: Bearer <token>": ' +
  'the CLI takes --restate-token or STATEWRIGHT_RESTATE_TOKEN, restateRuntime takes { token }';

/**
 * A call to a run object through the ingress without the worker's token, or with another: refused by
 * the handler before it reads or writes anything (terminal: Restate does not retry it).
 */
export class RestateUnauthorizedError extends StatewrightError {
  readonly kind = 'unauthorized';
  override readonly name = 'RestateUnauthorizedError';
  /** The refusal of a call that carried no token, and of one that carried another. */
  static readonly MISSING =
    `statewright's run objects on this Restate server need the worker's token, and this call carried none: ${HOW_TO_SEND}.`;
  static readonly WRONG = `Wrong token for statewright's run objects on this Restate server: ${HOW_TO_SEND}.`;
  constructor(message: string) {
    super(message);
  }
}

/** A call to a run object from a web page (it carries an `Origin`) of an origin the worker was not told to allow. */
export class RestateOriginError extends StatewrightError {
  readonly kind = 'forbidden';
  override readonly name = 'RestateOriginError';
  /** A call with no JSON body: a GET, which a link, an image or a script tag of any page sends with no Origin. */
  static readonly NOT_JSON =
    'Refused a call without a JSON body (a GET, which any web page can send with a link or an image, and no Origin): ' +
    "call statewright's run objects with POST and Content-Type: application/json, as restateRuntime and the CLI do.";
  /** A call a browser marks as sent from a page (`Sec-Fetch-Site`) with no Origin to check. */
  static readonly FROM_A_PAGE =
    "Refused a call a browser sent from a web page (its Sec-Fetch-Site says so): statewright's run objects take calls only from programs, " +
    'and from the pages of origins the worker allows (--allow-origin), which send their Origin.';
  static forOrigin(origin: string): string {
    return (
      `Refused a call from the web page at ${origin}: statewright's run objects take calls only from programs that send no Origin. ` +
      `To let that page call them, start statewright worker with --allow-origin ${origin}.`
    );
  }
  constructor(message: string) {
    super(message);
  }
}

/** A worker that would let anyone who reaches Restate drive its run objects: no token off loopback, or a weak one. */
export class RestateTokenError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'RestateTokenError';
  constructor(problem: string) {
    super(
      `Refusing to start the worker: ${problem}. Give it a token of ${MIN_TOKEN_LENGTH} or more visible characters in STATEWRIGHT_RESTATE_TOKEN ` +
        '(or --token; e.g. `openssl rand -hex 24`), and the same one to its clients (--restate-token or STATEWRIGHT_RESTATE_TOKEN).',
    );
  }
}
