/** Typed errors of the runtime. Each message says what was wrong and what to do. */

import { visibleJson } from './visible-text.js';
import { INLINE_CHILD_FIX } from './inline-children.js';
import { StatewrightError, type ErrorKind } from '../errors.js';

export class UnknownRunError extends StatewrightError {
  readonly kind = 'not-found';
  override readonly name = 'UnknownRunError';
  constructor(readonly runId: string) {
    super(`Unknown run '${runId}': no run with this id exists in the store. Check the id with \`statewright status\`.`);
  }
}

export class UnknownMachineError extends StatewrightError {
  readonly kind = 'not-found';
  override readonly name = 'UnknownMachineError';
  constructor(
    readonly machine: string,
    readonly known: readonly string[],
  ) {
    super(
      `Unknown machine '${machine}': the runtime hosts ${known.map((k) => `'${k}'`).join(', ') || 'no machines'}. Check the name with \`statewright machines\`; to host a machine of your own, add \`defineLifecycle({ name: '${machine}', machine })\` to the \`machines\` of statewright.config.ts (or pass it to \`createRuntime({ machines })\`).`,
    );
  }
}

export class MalformedEventError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'MalformedEventError';
  constructor(
    readonly event: unknown,
    problem: string,
  ) {
    super(`Malformed event: ${problem}. An event is a JSON object with a string 'type', e.g. {"type":"START"}.`);
  }
}

export class RunExistsError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RunExistsError';
  constructor(readonly runId: string) {
    super(`A run with id '${runId}' already exists. Pick another id, or leave it out to get a generated one.`);
  }
}

export class VersionMismatchError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'VersionMismatchError';
  constructor(
    readonly runId: string,
    readonly machine: string,
    readonly storedVersion: number,
    readonly currentVersion: number,
  ) {
    super(
      `Run '${runId}' was stored by ${machine} v${storedVersion}, but this runtime has ${machine} v${currentVersion}. ` +
        (storedVersion > currentVersion
          ? 'A newer definition wrote it: run the version of statewright and the registry that stored it.'
          : `Refusing to guess: register a migration for each version from ${storedVersion} to ${currentVersion} in the lifecycle's \`migrations\`.`),
    );
  }
}

export class RuntimeClosedError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'RuntimeClosedError';
  constructor() {
    super('The runtime is closed: create a new one to start or send to runs.');
  }
}

/** The machine threw while starting (its context factory failed) or applying an event (an action or guard failed); nothing was changed. */
export class MachineError extends StatewrightError {
  override readonly name = 'MachineError';
  /** The kind of what the machine threw (a metadata schema's refusal is `invalid`); anything else is a fault. */
  get kind(): ErrorKind {
    return this.cause instanceof StatewrightError ? this.cause.kind : 'internal';
  }
  constructor(
    readonly runId: string,
    readonly eventType: string,
    override readonly cause: unknown,
  ) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/\.$/, '');
    super(
      eventType === 'xstate.init'
        ? `Run '${runId}' could not start: ${reason}. Nothing was stored.`
        : `Run '${runId}' failed to apply '${eventType}': ${reason}. The run is unchanged.`,
    );
  }
}

/** An argument of a runtime call (a run id, an option, a filter, a start's input) that cannot be used as given. */
export class InvalidArgumentError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'InvalidArgumentError';
  constructor(
    readonly argument: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`Invalid ${argument}: expected ${expected}, got ${describe(value)}.`);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return visibleJson(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return `a ${typeof value}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    return `${Array.isArray(value) ? 'an array' : 'an object'} that JSON cannot hold (${(error as Error).message})`;
  }
}

/** An actor implementation given to `createRuntime({ actors })` threw while being built for a run; the run was not started or loaded. */
export class ActorFactoryError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'ActorFactoryError';
  constructor(
    readonly runId: string,
    readonly actor: string,
    override readonly cause: unknown,
  ) {
    super(
      `Run '${runId}': the '${actor}' actor could not be built: ${cause instanceof Error ? cause.message : String(cause)}. Fix the '${actor}' factory given to createRuntime({ actors }); nothing was changed.`,
    );
  }
}

/** `createRuntime({ actors })` names a machine or an actor that nothing would run. */
export class ActorsOptionError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'ActorsOptionError';
  constructor(problem: string) {
    super(
      `Invalid createRuntime({ actors }): ${problem}. Give each machine the actors it names, e.g. actors: { session: { agent } }.`,
    );
  }
}

/** An event or a start's input whose JSON is larger than the runtime's limit (`createRuntime({ limits })`); nothing was queued or stored. */
export class PayloadTooLargeError extends StatewrightError {
  readonly kind = 'too-large';
  override readonly name = 'PayloadTooLargeError';
  constructor(
    readonly what: 'event' | 'input',
    readonly bytes: number,
    readonly limit: number,
  ) {
    const option = what === 'event' ? 'eventBytes' : 'inputBytes';
    super(
      `The ${what === 'event' ? 'event' : "run's input"} is ${bytes} bytes as JSON, over the limit of ${limit} bytes. ` +
        `Keep large data outside the run (a file or a URL, and send its path), or raise the limit with createRuntime({ limits: { ${option} } }).`,
    );
  }
}

/** The run cannot be restored by this runtime (see `Runtime.setAside()`): it takes no events until it is moved on or ended. */
export class RunSetAsideError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RunSetAsideError';
  constructor(
    readonly runId: string,
    readonly reason: string,
    /** What failed when the run was first restored (absent when it was set aside earlier). */
    override readonly cause?: unknown,
  ) {
    super(
      `Run '${runId}' is set aside: ${reason.replace(/\.$/, '')}. It takes no events until it is moved on by a registered migration ` +
        `(restart with the lifecycle's \`migrations\` or definition fixed) or ended by a person (\`statewright end ${runId} --reason ...\`).`,
    );
  }
}

/** `end` was asked for a run that can be restored: only a run set aside is ended by hand. */
export class RunNotSetAsideError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RunNotSetAsideError';
  constructor(
    readonly runId: string,
    status: string,
  ) {
    super(
      status === 'active'
        ? `Run '${runId}' is not set aside: this runtime can restore it, so it is moved by its events. Send it the event that ends it instead.`
        : `Run '${runId}' is not set aside: it has already ended (status '${status}').`,
    );
  }
}

/**
 * A step (or a start) that spawns a child from inline logic, which can be neither stored nor
 * restored (inline-children.ts): refused before anything is stored, with the fix.
 */
export class InlineChildError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'InlineChildError';
  constructor(
    readonly runId: string,
    readonly eventType: string,
    readonly children: readonly string[],
  ) {
    const which = children.map((id) => `'${id}'`).join(', ');
    super(
      `${
        eventType === 'xstate.init'
          ? `Run '${runId}' could not start: it spawns`
          : `Run '${runId}' refused '${eventType}': it spawns`
      } ${children.length === 1 ? 'child' : 'children'} ${which} from inline logic, which statewright cannot store and restore (XState cannot revive such a child from its snapshot). To fix it, ${INLINE_CHILD_FIX}. ${
        eventType === 'xstate.init' ? 'Nothing was stored.' : 'The run is unchanged.'
      }`,
    );
  }
}
