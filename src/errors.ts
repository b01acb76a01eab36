/**
 * The one base of statewright's typed errors. Each error class stays beside the module that
 * raises it; what they share is a `kind`: what went wrong, in a word a program can act on. The
 * HTTP status `serve` answers with and the exit code of the CLI come from the kind, in the one
 * table below, never from an error's name.
 */

export const ERROR_KINDS = {
  /** A value that is not what the call takes: a bad id, input, payload or request body. */
  invalid: { status: 422, exitCode: 1 },
  /** A mistake in how a command was called (the CLI's own). */
  usage: { status: 400, exitCode: 2 },
  /** A request whose form is broken before its meaning is read (a path that does not decode). */
  malformed: { status: 400, exitCode: 1 },
  /** No such run, machine, task or loop. */
  'not-found': { status: 404, exitCode: 1 },
  /** Not allowed in the present state: an event the state does not accept, an id taken, a run held elsewhere. */
  conflict: { status: 409, exitCode: 1 },
  /** Over a size limit. */
  'too-large': { status: 413, exitCode: 1 },
  /** A missing or wrong token. */
  unauthorized: { status: 401, exitCode: 1 },
  /** A caller that may not call at all, whatever it shows (a web page of another origin). */
  forbidden: { status: 403, exitCode: 1 },
  /** A request body of a type the server does not take. */
  'unsupported-type': { status: 415, exitCode: 1 },
  /** A request meant for another host (a `Host` that is not this server). */
  'wrong-host': { status: 421, exitCode: 1 },
  /** The store, the runtime or a server cannot serve now; the same call may work later. */
  unavailable: { status: 503, exitCode: 1 },
  /** A configuration or set-up that cannot work as given (a machine, a file, a port, an option). */
  setup: { status: 500, exitCode: 1 },
  /** A fault of statewright or of the code it runs: not the caller's to fix. */
  internal: { status: 500, exitCode: 1 },
} as const satisfies Record<string, { status: number; exitCode: number }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** Every typed error of statewright: `name` is its class, `kind` what a caller can do about it. */
export abstract class StatewrightError extends Error {
  abstract readonly kind: ErrorKind;
}

/** The kind of any error: a statewright error's own, else internal. */
export function errorKind(error: unknown): ErrorKind {
  return error instanceof StatewrightError ? error.kind : 'internal';
}

/** The HTTP status an error is answered with. */
export const httpStatus = (error: unknown): number => ERROR_KINDS[errorKind(error)].status;

/** The exit code of a command that failed with `error`. */
export const exitCode = (error: unknown): number => ERROR_KINDS[errorKind(error)].exitCode;
