/**
 * The actors a run's machine has inside its run object: stand-ins that do nothing but record. The
 * object restores the run's machine at every call, and XState starts every invoked actor again as
 * it restores; so a stand-in records only while the step is being taken (`record`), when a start,
 * a stop or an event sent to it is the step's own doing. Each intent goes to the worker or to
 * Restate after the step is written (intents.ts).
 */
import { fromCallback, type AnyActorLogic, type EventObject } from 'xstate';
import type { ActorFactory, MachineActors, RunHandle } from '../actor-contract/run-handle.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { DeadlineInput } from '../runtime/timers/deadline-timer.js';
import type { ArmIntent, Intent } from './intents.js';

/** The name every lifecycle's durable timer actor has. */
const DEADLINE = 'deadline';

export class IntentRecorder {
  readonly intents: Intent[] = [];
  #recording = false;

  constructor(
    readonly runId: string,
    /** The seq of the step being taken: part of each start's intent id. */
    readonly seq: number,
  ) {}

  /** Runs `take` (the step) with recording on. */
  record<T>(take: () => T): T {
    this.#recording = true;
    try {
      return take();
    } finally {
      this.#recording = false;
    }
  }

  started(id: string, src: string, input: unknown): void {
    if (!this.#recording) return;
    if (src === DEADLINE) {
      const { deadline, event } = input as DeadlineInput;
      this.intents.push({ kind: 'arm', id, deadline, event: event as ArmIntent['event'] });
      return;
    }
    this.intents.push({
      kind: 'start',
      id,
      src,
      input: input === undefined ? null : JSON.parse(JSON.stringify(input)),
      intentId: `${this.runId}:${this.seq}:${id}`,
    });
  }

  stopped(id: string, src: string): void {
    // A deadline left behind is not cancelled: when it fires, the object finds it no longer armed.
    if (this.#recording && src !== DEADLINE) this.intents.push({ kind: 'stop', id });
  }

  delivered(id: string, src: string, event: EventObject): void {
    if (this.#recording && src !== DEADLINE)
      this.intents.push({ kind: 'deliver', id, event: JSON.parse(JSON.stringify(event)) });
  }
}

/** The recorder of each handle the object builds for a call. */
const recorders = new WeakMap<RunHandle, IntentRecorder>();

/** A run handle for one call of a run object: its stand-ins record into `recorder`; nothing else is done through it. */
export function recordingHandle(runId: string, machine: string, recorder: IntentRecorder): RunHandle {
  const handle: RunHandle = {
    runId,
    machine,
    clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} },
    send: () => {},
    afterCommit: () => {},
    afterStop: () => {},
    log: () => {},
  };
  recorders.set(handle, recorder);
  return handle;
}

function standIn(src: string): ActorFactory {
  return (run) => {
    const recorder = recorders.get(run);
    if (!recorder) throw new Error(`the '${src}' stand-in was built for a handle no run object made`);
    return fromCallback<EventObject, unknown>(({ input, self, receive }) => {
      recorder.started(self.id, src, input);
      receive((event) => recorder.delivered(self.id, src, event));
      return () => recorder.stopped(self.id, src);
    }) as AnyActorLogic;
  };
}

/** A stand-in for every actor every lifecycle names, `deadline` included. */
export function standInActors(machines: Lifecycles): MachineActors {
  return Object.fromEntries(
    Object.entries(machines).map(([name, lifecycle]) => [
      name,
      Object.fromEntries(Object.keys(lifecycle.machine.implementations.actors ?? {}).map((src) => [src, standIn(src)])),
    ]),
  );
}
