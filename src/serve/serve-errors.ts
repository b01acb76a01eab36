/** Typed errors of `statewright serve` and of the CLI talking to it. Each says what was wrong and what to do. */
import { StatewrightError } from '../errors.js';

/** The API or inspector port is taken by another process. */
export class PortInUseError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'PortInUseError';
  constructor(
    readonly what: string,
    readonly host: string,
    readonly port: number,
    readonly option: string,
  ) {
    super(
      `Cannot serve the ${what} on ${host}:${port}: the port is in use by another process. Stop that process, or pick another port with ${option} <n> (0 picks a free one).`,
    );
  }
}

/** `--no-token` beyond the loopback interface would let anyone on the network drive the runs. */
export class TokenRequiredError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'TokenRequiredError';
  constructor(readonly host: string) {
    super(
      `Refusing to serve on ${host} without a token: anyone who can reach it could start processes through it. ` +
        'Leave out --no-token (serve then makes a random token and prints it), or bind to 127.0.0.1.',
    );
  }
}

/** A request body that is not what the route takes (not JSON, or missing a field). */
export class RequestBodyError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'RequestBodyError';
  constructor(problem: string, example: string) {
    super(`Bad request body: ${problem}. Example: ${example}`);
  }
}

/** A query parameter a route cannot take: a limit out of range, a cursor this server did not give out, an unknown status. */
export class QueryParameterError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'QueryParameterError';
  constructor(
    readonly parameter: string,
    readonly value: string,
    problem: string,
    example: string,
  ) {
    super(
      `Bad query parameter '${parameter}' (${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)}): ${problem}. Example: ${example}`,
    );
  }
}

/** A request body over the server's limit. */
export class BodyTooLargeError extends StatewrightError {
  readonly kind = 'too-large';
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(
      `The request body is larger than ${limit} bytes, the most this server takes. Keep big data in files and send their paths.`,
    );
  }
}

/** A missing or wrong bearer token. */
export class UnauthorizedError extends StatewrightError {
  readonly kind = 'unauthorized';
  override readonly name = 'UnauthorizedError';
  constructor(missing: boolean) {
    super(
      missing
        ? 'This server needs its token: open the live view through the URL serve printed (it ends in #token=...; `statewright open` prints it again), or send the header ' +
            '"Authorization: Bearer <token>". The CLI of the same user finds the token in the server file beside the store, or takes --token or STATEWRIGHT_TOKEN.'
        : 'Wrong token: send the token this server was started with (serve printed it in the URL of the live view), as "Authorization: Bearer <token>".',
    );
  }
}

/** The live view's per-tab credential is unknown or lapsed: the view is opened again through its URL. */
export class ViewCredentialError extends StatewrightError {
  readonly kind = 'unauthorized';
  override readonly name = 'ViewCredentialError';
  constructor() {
    super(
      "The live view's session is over (it lapsed, or serve runs with another token now): open the view again through " +
        'the URL serve printed (`statewright open` prints it, or opens it with --browser).',
    );
  }
}

/** A token too short or blank to keep anyone out: refused at start, before anything is served. */
export class WeakTokenError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'WeakTokenError';
  constructor(
    readonly length: number,
    readonly minimum: number,
  ) {
    super(
      `Refusing a server token of ${length} characters: a token must be at least ${minimum} visible ASCII characters with no spaces. ` +
        'Leave --token and STATEWRIGHT_TOKEN unset to get a random one, or give a longer one (e.g. `openssl rand -hex 24`).',
    );
  }
}

/** A request sent from a web page of another origin (any page the user visits could send it). */
export class ForeignOriginError extends StatewrightError {
  readonly kind = 'forbidden';
  override readonly name = 'ForeignOriginError';
  constructor(readonly origin: string) {
    super(
      `Refused a request from the web page at ${origin}: this server takes requests only from its own live view and from programs that send no Origin. ` +
        `To let that page call the API, start serve with --cors-origin ${origin}.`,
    );
  }
}

/** A `Host` that names neither this server nor an allowed name: how a DNS-rebound page would reach it. */
export class HostNotAllowedError extends StatewrightError {
  readonly kind = 'wrong-host';
  override readonly name = 'HostNotAllowedError';
  constructor(readonly host: string) {
    super(
      `Refused a request for host '${host}': this server answers only to its own address, localhost and IP addresses it listens on. ` +
        `If '${host}' is a name of this machine you use on purpose, start serve with --allowed-host ${host.replace(/:\d+$/, '')}.`,
    );
  }
}

/** A request that changes something without a JSON body type: a web page's form or no-cors fetch looks like that. */
export class UnsupportedMediaTypeError extends StatewrightError {
  readonly kind = 'unsupported-type';
  override readonly name = 'UnsupportedMediaTypeError';
  constructor(readonly type: string | undefined) {
    super(
      `Send requests that change anything with "Content-Type: application/json" (got ${type ? `"${type}"` : 'none'}).`,
    );
  }
}

/** A URL whose percent-encoding does not decode (e.g. `%ff`, `%zz`). */
export class MalformedUrlError extends StatewrightError {
  readonly kind = 'malformed';
  override readonly name = 'MalformedUrlError';
  constructor(readonly path: string) {
    super(
      `The path ${JSON.stringify(path.slice(0, 200))} is not valid percent-encoded UTF-8: encode each run id with encodeURIComponent.`,
    );
  }
}

/**
 * A config reload that would strand live runs silently: a lifecycle's definition changed but kept
 * its version, and runs of it that the old definition restores, the new one cannot. serve keeps
 * the config it runs.
 */
export class UnversionedEditError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'UnversionedEditError';
  constructor(
    readonly file: string,
    readonly machine: string,
    readonly version: number,
    readonly runs: ReadonlyArray<{ readonly runId: string; readonly state: string; readonly reason: string }>,
  ) {
    const first = runs[0]!;
    super(
      `The config ${file} changes ${machine} but keeps its version ${version}, and ${runs.length} live run(s) of it cannot be restored under the new definition (run '${first.runId}' in '${first.state}': ${first.reason}). ` +
        `Give it version: ${version + 1} with migrations: { ${version}: (snapshot) => ... } bringing such runs to the new definition (without one they are set aside), or keep the states they rest in.`,
    );
  }
}

/**
 * The CLI and the serve it talks to read different configs, and serve could not load the one the
 * CLI reads: what serve would answer is not what the config on disk says.
 */
export class ConfigMismatchError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'ConfigMismatchError';
  constructor(
    readonly url: string,
    readonly file: string,
    served: { readonly hash: string | null; readonly loadedAt: string },
    failure: string,
  ) {
    super(
      `The statewright serve at ${url} runs ${file} as it was at ${served.loadedAt} (hash ${served.hash}), not as it is now: it could not load the change (${failure.replace(/\.$/, '')}). ` +
        'Nothing was sent. Fix the config: serve loads it again when it is saved (GET /api/host shows its config), and run this again.',
    );
  }
}

/** A role credential asked of a serve that takes no token (`--no-token`): there is nothing to scope. */
export class NoCredentialsError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'NoCredentialsError';
  constructor() {
    super(
      'This serve runs with --no-token: every local caller acts as the user, so a scoped credential would keep no one to anything. ' +
        'Start serve with a token (the default) to give agents credentials of their own.',
    );
  }
}

/** A role credential asked for a run that is not a task run. */
export class NotATaskRunError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'NotATaskRunError';
  constructor(
    readonly runId: string,
    readonly machine: string,
  ) {
    super(
      `Run ${runId} is a ${machine} run, not a task run: role credentials are for task runs (\`statewright task credential --as <agent>\` names the project's).`,
    );
  }
}
