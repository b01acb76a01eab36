/**
 * A run's step as its run object takes it: the machine restored from the stored snapshot with
 * stand-in actors (intent-recorder.ts), the event applied, and either a refusal decided before
 * anything is written (`InvalidTransitionError`, `MetadataValidationError`... from
 * `explainRejection`, as the runtime's own send gives them) or the new row, its audit entry and the
 * intents the step made. Pure given the stored run and the event: a Restate retry that replays the
 * handler takes the very same step.
 */
import { createActor, type AnyMachineSnapshot, type AnyStateMachine, type Actor } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import { currentStateName, explainRejection } from '../graph/index.js';
import { actorsCreated } from '../graph/xstate-internals.js';
import { InlineChildError, MachineError } from '../runtime/errors.js';
import { inlineChildren } from '../runtime/inline-children.js';
import { HostedMachines } from '../runtime/hosted-machines.js';
import { migrate } from '../runtime/migrate.js';
import { SpawnedChildIds } from '../runtime/spawned-child-ids.js';
import { nextDeadline } from '../runtime/timers/next-deadline.js';
import { storedArmedDelays, withArmedDelays, type ArmedDelays } from '../runtime/timers/after-delays.js';
import type { EventRecord, StoredRun } from '../stores/store.js';
import { IntentRecorder, recordingHandle, standInActors } from './intent-recorder.js';
import type { DelayIntent, Intent } from './intents.js';

export interface RunEventIn {
  readonly type: string;
  /** Stamped by the client (or the object's journaled clock) before the step. */
  readonly at: number;
  readonly [key: string]: unknown;
}

/** What a step gives: a refusal, nothing (an `ifAccepted` event the run no longer takes), or the step to write. */
export type StepOutcome = { readonly refused: Error } | { readonly dropped: true } | TakenStep;

/** A step to write: the new row, its audit entry (none for a start), and what it asks of its actors and timers. */
export interface TakenStep {
  readonly run: StoredRun;
  readonly entry: EventRecord | undefined;
  readonly intents: readonly Intent[];
  /** The `after` event types of the states the run rests in after the step. */
  readonly activeAfters: readonly string[];
}

/** XState's own timers (`after`) never fire inside a handler: each becomes a Restate delayed call (a `delay` intent). */
const NO_TIMERS = { setTimeout: () => 0, clearTimeout: () => {} };
const ignoreObservedError = () => {};

export class RunSteps {
  readonly #machines: HostedMachines;

  constructor(readonly lifecycles: Lifecycles) {
    this.#machines = new HostedMachines(lifecycles, standInActors(lifecycles));
  }

  /** A new run of `machine` at its initial state, with what its entry started. */
  start(runId: string, machine: string, input: unknown, now: number): StepOutcome {
    const lifecycle = this.#machines.lifecycle(machine);
    const recorder = new IntentRecorder(runId, 0);
    const { actor } = this.#actor(runId, machine, recorder, { input }, 0);
    try {
      recorder.record(() => actor.start());
      const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
      if (snapshot.status === 'error') return { refused: new MachineError(runId, 'xstate.init', snapshot.error) };
      const inline = inlineChildren(snapshot);
      if (inline.length) return { refused: new InlineChildError(runId, 'xstate.init', inline) };
      const delays = scheduledDelays(actor);
      const run: StoredRun = {
        runId,
        machine,
        version: lifecycle.version,
        status: snapshot.status,
        state: currentStateName(snapshot),
        snapshot: withArmedDelays(actor.getPersistedSnapshot(), armedAfter(snapshot, undefined, delays, now)),
        input: input ?? null,
        seq: 0,
        owner: undefined,
        createdAt: now,
        updatedAt: now,
        ...deadlineOf(snapshot),
      };
      return {
        run,
        entry: undefined,
        intents: [...recorder.intents, ...delays],
        activeAfters: activeAfters(snapshot),
      };
    } finally {
      actor.stop();
    }
  }

  /** `event` applied to the stored run (brought to the current version first, by its migrations). */
  step(stored: StoredRun, event: RunEventIn, options: SendOptions): StepOutcome {
    let run: StoredRun;
    try {
      run = migrate(stored, this.#machines.lifecycle(stored.machine));
    } catch (error) {
      return { refused: error as Error };
    }
    const recorder = new IntentRecorder(run.runId, run.seq + 1);
    const { actor } = this.#actor(run.runId, run.machine, recorder, { snapshot: run.snapshot }, run.seq + 1);
    try {
      actor.start();
      const before = actor.getSnapshot() as AnyMachineSnapshot;
      if (before.status === 'error' && run.status !== 'error')
        return { refused: new MachineError(run.runId, 'xstate.restore', before.error) };
      if (before.status !== 'active')
        return options.ifAccepted ? { dropped: true } : { refused: explainRejection(before, event) };
      recorder.record(() => actor.send(event));
      const after = actor.getSnapshot() as AnyMachineSnapshot;
      // XState returns the same snapshot when no transition was taken, and when one was taken that changes nothing: `can` tells.
      if (after === before && !before.can(event))
        return options.ifAccepted ? { dropped: true } : { refused: explainRejection(before, event) };
      if (after.status === 'error') return { refused: new MachineError(run.runId, event.type, after.error) };
      const inline = inlineChildren(after);
      if (inline.length) return { refused: new InlineChildError(run.runId, event.type, inline) };
      const seq = run.seq + 1;
      const state = currentStateName(after);
      const { wakeAt: _previous, ...rest } = run;
      const delays = scheduledDelays(actor);
      // The delay this step was is armed no more, unless the step armed it again.
      const { [event.type]: _fired, ...stillArmed } = storedArmedDelays(run.snapshot) ?? {};
      const next: StoredRun = {
        ...rest,
        status: after.status,
        state,
        snapshot: withArmedDelays(actor.getPersistedSnapshot(), armedAfter(after, stillArmed, delays, event.at)),
        seq,
        updatedAt: event.at,
        ...deadlineOf(after),
      };
      const entry: EventRecord = {
        runId: run.runId,
        seq,
        event,
        at: event.at,
        before: run.state,
        after: state,
        ...(options.actor !== undefined && { actor: options.actor }),
        ...(options.reason !== undefined && { reason: options.reason }),
        ...(options.credential !== undefined && { credential: options.credential }),
        ...(options.idempotencyKey !== undefined && { idempotencyKey: options.idempotencyKey }),
      };
      return {
        run: next,
        entry,
        intents: [...recorder.intents, ...delays],
        activeAfters: activeAfters(after),
      };
    } finally {
      actor.stop();
    }
  }

  /** Whether the stored run still has a live `deadline` actor for `type` due at `deadline`: a delayed call that finds none was left behind by its state. */
  armed(stored: StoredRun, deadline: number, type: string): boolean {
    const recorder = new IntentRecorder(stored.runId, stored.seq);
    let run: StoredRun;
    try {
      run = migrate(stored, this.#machines.lifecycle(stored.machine));
    } catch {
      return false;
    }
    const { actor } = this.#actor(run.runId, run.machine, recorder, { snapshot: run.snapshot }, undefined);
    try {
      actor.start();
      const children = (actor.getSnapshot() as AnyMachineSnapshot).children as Record<
        string,
        {
          src?: unknown;
          getSnapshot(): { status?: string; input?: { deadline?: unknown; event?: { type?: unknown } } };
        }
      >;
      return Object.values(children).some((child) => {
        if (child?.src !== 'deadline') return false;
        const snapshot = child.getSnapshot();
        return (
          snapshot.status === 'active' && snapshot.input?.deadline === deadline && snapshot.input?.event?.type === type
        );
      });
    } finally {
      actor.stop();
    }
  }

  /** `seq`: the step the actor takes (0: the start), whose children spawned without an id it names (spawned-child-ids.ts). */
  #actor(
    runId: string,
    machine: string,
    recorder: IntentRecorder,
    from: { input: unknown } | { snapshot: unknown },
    seq: number | undefined,
  ): { actor: Actor<AnyStateMachine> } {
    const { logic, logger } = this.#machines.logicFor(recordingHandle(runId, machine, recorder), machine);
    const actor = createActor(logic, {
      id: runId,
      logger,
      clock: NO_TIMERS,
      inspect: actorsCreated(new SpawnedChildIds(seq).created, undefined),
      ...('snapshot' in from ? { snapshot: from.snapshot as never } : { input: from.input }),
    });
    actor.subscribe({ error: ignoreObservedError });
    return { actor };
  }
}

interface Scheduled {
  readonly source: unknown;
  readonly target: unknown;
  readonly id: string;
  readonly delay: number;
  readonly event: { readonly type: string };
}

/**
 * The delayed events XState scheduled for the run itself while the step was taken (a restored actor
 * has none of its own: XState does not keep them in a snapshot), before the actor is stopped.
 */
function scheduledDelays(actor: Actor<AnyStateMachine>): DelayIntent[] {
  const system = actor.system as unknown as { getSnapshot(): { _scheduledEvents: Record<string, Scheduled> } };
  return Object.values(system.getSnapshot()._scheduledEvents)
    .filter((scheduled) => scheduled.source === actor && scheduled.target === actor)
    .map((scheduled) => ({
      kind: 'delay',
      id: scheduled.id,
      event: JSON.parse(JSON.stringify(scheduled.event)) as DelayIntent['event'],
      delay: scheduled.delay,
    }));
}

/** The `after` event types of the active states: an `after` delay of a state left is cancelled. */
function activeAfters(snapshot: AnyMachineSnapshot): string[] {
  return snapshot._nodes.flatMap((node) =>
    (node.after as ReadonlyArray<{ eventType: string }>).map((t) => t.eventType),
  );
}

/**
 * The `after` delays of the states the run rests in after a step taken at `at`, and when each is
 * due: the step's own (`scheduled`), else as stored before (`previous`); kept in the row's snapshot
 * as a store host keeps them (after-delays.ts), for `explain`. The delayed calls themselves follow
 * the run object's pending delays.
 */
function armedAfter(
  snapshot: AnyMachineSnapshot,
  previous: ArmedDelays | undefined,
  scheduled: readonly DelayIntent[],
  at: number,
): ArmedDelays | undefined {
  let armed: Record<string, number> | undefined;
  for (const type of activeAfters(snapshot)) {
    const fresh = scheduled.find((delay) => delay.id === type);
    const due = fresh ? at + fresh.delay : previous?.[type];
    if (due !== undefined) (armed ??= {})[type] = due;
  }
  return armed;
}

function deadlineOf(snapshot: AnyMachineSnapshot): { wakeAt?: number } {
  const next = nextDeadline(snapshot);
  return next === null ? {} : { wakeAt: next };
}
