/**
 * A typed error as it crosses Restate: the run object answers a refusal as a value (`{ refused }`),
 * never as a thrown terminal error, so nothing it wrote before could be kept by mistake and the
 * caller gets every field back. `toWire` keeps the error's name, kind, message and own JSON fields;
 * `fromWire` gives the caller an instance of the same class (`instanceof InvalidTransitionError`
 * holds on the client as it does beside a store), or `RestateRefusedError` for a class it does not
 * know (a config's own error), which keeps the name and kind.
 */
import { ContinueSessionError } from '../../machines/session/continue.js';
import { SessionTransitionError } from '../../machines/session/status.js';
import { LeaseError } from '../../machines/task/lease.js';
import { ERROR_KINDS, errorKind, StatewrightError, type ErrorKind } from '../errors.js';
import { InvalidTransitionError, MetadataValidationError } from '../graph/index.js';
import { RoleError } from '../graph/role-guard.js';
import {
  InlineChildError,
  InvalidArgumentError,
  MachineError,
  MalformedEventError,
  PayloadTooLargeError,
  RunExistsError,
  UnknownMachineError,
  UnknownRunError,
  VersionMismatchError,
} from '../runtime/errors.js';

export interface WireError {
  readonly name: string;
  readonly kind: ErrorKind;
  readonly message: string;
  /** The error's own fields (`state`, `event`, `accepts`, `missing`...), as JSON. */
  readonly fields: Record<string, unknown>;
}

/** The classes rebuilt by name; every other refusal comes back as `RestateRefusedError`. */
const KNOWN: Readonly<Record<string, abstract new (...args: never[]) => Error>> = {
  InvalidTransitionError,
  RoleError,
  LeaseError,
  SessionTransitionError,
  ContinueSessionError,
  MetadataValidationError,
  UnknownRunError,
  UnknownMachineError,
  RunExistsError,
  VersionMismatchError,
  MachineError,
  InlineChildError,
  InvalidArgumentError,
  MalformedEventError,
  PayloadTooLargeError,
};

export function toWire(error: Error): WireError {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(error)) {
    if (name === 'name' || name === 'kind' || name === 'message' || name === 'stack') continue;
    // `cause` may be any thrown value: its message is what a caller can read.
    fields[name] = name === 'cause' ? { message: value instanceof Error ? value.message : String(value) } : value;
  }
  return {
    name: error.name,
    kind: errorKind(error),
    message: error.message,
    fields: JSON.parse(JSON.stringify(fields)),
  };
}

export function fromWire(wire: WireError): Error {
  const known = Object.hasOwn(KNOWN, wire.name) ? KNOWN[wire.name] : undefined;
  if (!known) return new RestateRefusedError(wire);
  const error = Object.create(known.prototype) as Error;
  const own = { ...wire.fields, name: wire.name, message: wire.message } as Record<string, unknown>;
  if (own.cause && typeof own.cause === 'object')
    own.cause = new Error(String((own.cause as { message?: unknown }).message));
  // `kind` is a field on most classes and a getter on some (MachineError, whose kind is its cause's):
  // the cause is rebuilt as a plain Error, so the kind the endpoint gave is set on the instance,
  // where it shadows the getter (a session's invalid input stays `invalid`, answered 422).
  own.kind = wire.kind;
  for (const [name, value] of Object.entries(own))
    Object.defineProperty(error, name, { value, enumerable: name !== 'message', writable: true, configurable: true });
  Error.captureStackTrace?.(error, fromWire);
  return error;
}

/** A refusal of a class this client does not know (a config's own error): its name, kind and message as the run object gave them. */
export class RestateRefusedError extends StatewrightError {
  readonly kind: ErrorKind;
  /** The refusing error's class name on the endpoint. */
  readonly refusedBy: string;
  readonly fields: Record<string, unknown>;
  constructor(wire: WireError) {
    super(wire.message);
    this.name = 'RestateRefusedError';
    this.refusedBy = wire.name;
    this.kind = Object.hasOwn(ERROR_KINDS, wire.kind) ? wire.kind : 'internal';
    this.fields = wire.fields;
  }
}
