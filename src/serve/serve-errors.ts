/** Typed errors of `statewright serve` and of the CLI talking to it. Each says what was wrong and what to do. */

/** The API or inspector port is taken by another process. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(readonly what: string, readonly host: string, readonly port: number, readonly option: string) {
    super(`Cannot serve the ${what} on ${host}:${port}: the port is in use by another process. Stop that process, or pick another port with ${option} <n> (0 picks a free one).`);
  }
}

/** Binding beyond the loopback interface without a token would let anyone on the network drive the runs. */
export class TokenRequiredError extends Error {
  override readonly name = 'TokenRequiredError';
  constructor(readonly host: string) {
    super(`Refusing to serve on ${host} without a token: anyone who can reach it could start and move runs. Give --token <secret> (or set STATEWRIGHT_TOKEN), or bind to 127.0.0.1.`);
  }
}

/** A request body that is not what the route takes (not JSON, or missing a field). */
export class RequestBodyError extends Error {
  override readonly name = 'RequestBodyError';
  constructor(problem: string, example: string) {
    super(`Bad request body: ${problem}. Example: ${example}`);
  }
}

/** A request body over the server's limit. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes, the most this server takes. Keep big data in files and send their paths.`);
  }
}

/** A missing or wrong bearer token. */
export class UnauthorizedError extends Error {
  override readonly name = 'UnauthorizedError';
  constructor(missing: boolean) {
    super(
      missing
        ? 'This server needs a token: send the header "Authorization: Bearer <token>" (the CLI takes --token or STATEWRIGHT_TOKEN).'
        : 'Wrong token: send the token this server was started with, as "Authorization: Bearer <token>".',
    );
  }
}
